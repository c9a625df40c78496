package io.github.redislock.redis.support;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockTokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockValue#read}: only the library's own forms name an owner, whatever else a key holds; an owner id
 * is always 22 URL-safe Base64 characters, so nothing read back can steer the registry read to another name.
 */
class LockValueReadTest {

    private static final String ID = LockTokens.randomId();

    @Test
    void readsEachFormTheLibraryWrites() {
        assertThat(LockValue.read(null)).isEqualTo(new LockValue.Read(State.FREE, null, null));
        assertThat(LockValue.read(ID + ".1z:1764000000000000"))
            .isEqualTo(new LockValue.Read(State.HELD, ID, 1764000000000000L));
        assertThat(LockValue.read(ID + ":17")).isEqualTo(new LockValue.Read(State.HANDED_OFF, ID, 17L));
        assertThat(LockValue.read("~kept:42")).isEqualTo(new LockValue.Read(State.KEPT, null, 42L));
        assertThat(LockValue.read("~:42")).isEqualTo(new LockValue.Read(State.FREE, null, 42L));
    }

    @Test
    void readsATokenOfThisLibraryBackAsItsOwnId() {
        LockTokens tokens = new LockTokens();
        LockValue.Read read = LockValue.read(LockValue.of(tokens.next(), 5));
        assertThat(read.state()).isEqualTo(State.HELD);
        assertThat(read.ownerId()).isEqualTo(tokens.id());
    }

    @Test
    void anythingElseNamesNobody() {
        for (String value : new String[] { "", "plain", "1", ":5", "x:1", ID, ID + ":", ID + ":x", ID + ":-1",
                ID + ":1234567890123456789", ID + ".:5", ID + ".A:5", ID + ".12345678901234:5", ID + "!.1:5",
                ID.substring(1) + ".1:5", "../../etc.1:5", "a{b}c:5", ID.replace(ID.charAt(0), '~') + ".1:5",
                ID + ".1:5\n", "~type:hash", "~kept:", "~kept:x", "~:" }) {
            LockValue.Read read = LockValue.read(value);
            assertThat(read.ownerId()).as(value).isNull();
            assertThat(read.state()).as(value).isIn(State.OTHER, State.KEPT, State.FREE);
        }
        assertThat(LockValue.read("plain").state()).isEqualTo(State.OTHER);
        assertThat(LockValue.read("~type:hash").state()).isEqualTo(State.OTHER);
        assertThat(LockValue.read("x:1")).isEqualTo(new LockValue.Read(State.OTHER, null, 1L));
    }

    @Test
    void sinceIsTheFenceReadAsMicrosecondsWhenThatIsAPlausibleTime() {
        Instant now = Instant.parse("2026-11-25T12:00:00Z");
        long micros = now.minusSeconds(5).getEpochSecond() * 1_000_000 + 250;
        assertThat(LockValue.read(ID + ".1:" + micros).since(now)).isEqualTo(now.minusSeconds(5).plusNanos(250_000));
        assertThat(LockValue.read(ID + ".1:17").since(now)).isNull();
        assertThat(LockValue.read(ID + ".1:" + (micros + 2L * 86_400_000_000L)).since(now)).isNull();
    }
}
