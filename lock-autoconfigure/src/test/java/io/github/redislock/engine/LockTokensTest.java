package io.github.redislock.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Tokens are the engine's id, a dot and the sequence number in base 36, each read back to that id. */
class LockTokensTest {

    @Test
    void tokensAreTheIdADotAndTheSequenceInBase36() {
        LockTokens tokens = new LockTokens();
        // Past one, two and three digits, and so past every change of the token's length.
        for (long sequence = 1; sequence <= 50_000; sequence++) {
            assertThat(tokens.next()).isEqualTo(tokens.id() + "." + Long.toString(sequence, 36));
        }
    }

    @Test
    void everyTokenNamesItsEnginesId() {
        LockTokens tokens = new LockTokens();
        for (int i = 0; i < 1_000; i++) {
            assertThat(LockTokens.idOf(tokens.next())).isEqualTo(tokens.id());
        }
    }
}
