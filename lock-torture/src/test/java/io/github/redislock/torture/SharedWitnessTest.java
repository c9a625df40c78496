package io.github.redislock.torture;

import java.util.List;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The witness's scripts for the shared workloads against a real Redis: the key's bound on entering
 * ({@code enter-shared.lua}) and readers in the fencing store ({@code fenced-look.lua}, and the writers' scripts
 * refusing a writer below a reader).
 */
class SharedWitnessTest {

    private static final long TOKEN = 1_700_000_000_000_123L;

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private Witness witness;

    @BeforeEach
    void connect() {
        this.witness = Witness.connect(redis.server().port());
    }

    @AfterEach
    void close() {
        this.witness.close();
    }

    @Test
    void readersEnterTogether() {
        this.witness.enterShared(List.of("r0"), "w1:t0:1:R");
        this.witness.enterShared(List.of("r0"), "w2:t0:1:R");

        Witness.Entry third = this.witness.enterShared(List.of("r0"), "w3:t0:1:R");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void aWriterFindsEveryoneInside() {
        this.witness.enterShared(List.of("r0"), "w1:t0:1:R");
        this.witness.enterShared(List.of("r0"), "w2:t0:1:R");

        Witness.Entry writer = this.witness.enterShared(List.of("r0"), "w3:t0:1:W");

        assertThat(writer.others()).containsExactlyInAnyOrder("w1:t0:1:R", "w2:t0:1:R");
    }

    @Test
    void aReaderFindsOnlyTheWritersInside() {
        this.witness.enterShared(List.of("r0"), "w1:t0:1:R");
        this.witness.enterShared(List.of("r0"), "w2:t0:1:W");

        Witness.Entry reader = this.witness.enterShared(List.of("r0"), "w3:t0:1:R");

        assertThat(reader.others()).containsExactly("w2:t0:1:W");
    }

    @Test
    void permitsUpToTheCountAreNoBreach() {
        this.witness.enterShared(List.of("r0"), "w1:t0:1:P3");
        this.witness.enterShared(List.of("r0"), "w2:t0:1:P3");

        Witness.Entry third = this.witness.enterShared(List.of("r0"), "w3:t0:1:P3");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void onePermitMoreThanTheCountFindsEveryHolderInside() {
        this.witness.enterShared(List.of("r0"), "w1:t0:1:P2");
        this.witness.enterShared(List.of("r0"), "w2:t0:1:P2");

        Witness.Entry third = this.witness.enterShared(List.of("r0"), "w3:t0:1:P2");

        assertThat(third.others()).containsExactlyInAnyOrder("w1:t0:1:P2", "w2:t0:1:P2");
    }

    @Test
    void aPermitLeftMakesRoomAgain() {
        this.witness.enterShared(List.of("r0"), "w1:t0:1:P2");
        this.witness.enterShared(List.of("r0"), "w2:t0:1:P2");
        this.witness.leave(List.of("r0"), "w1:t0:1:P2");

        Witness.Entry third = this.witness.enterShared(List.of("r0"), "w3:t0:1:P2");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void aPermitOfADeadWorkerTakesNoRoom() {
        this.witness.enterShared(List.of("r0"), "w1:t0:1:P2");
        this.witness.enterShared(List.of("r0"), "w2:t0:1:P2");
        this.witness.command("SADD", "dead", "w1");

        Witness.Entry third = this.witness.enterShared(List.of("r0"), "w3:t0:1:P2");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void aReaderIsRefusedBelowTheHighestWriter() {
        this.witness.fencedRead("r0", TOKEN, "w1");

        assertThat(this.witness.fencedLook("r0", TOKEN - 1, "w2")).isNull();
        assertThat(this.witness.fencedLook("r0", TOKEN, "w3")).isEqualTo("0");
        assertThat(this.witness.command("HGET", Witness.REJECTED, "w2")).isEqualTo("1");
    }

    @Test
    void readersAreNotRefusedBelowEachOther() {
        this.witness.fencedLook("r0", TOKEN + 5, "w1");

        assertThat(this.witness.fencedLook("r0", TOKEN, "w2")).isEqualTo("0");
    }

    @Test
    void aWriterIsRefusedBelowTheHighestReader() {
        this.witness.fencedLook("r0", TOKEN, "w1");

        assertThat(this.witness.fencedRead("r0", TOKEN - 1, "w2")).isNull();
        assertThat(this.witness.fencedWrite("r0", TOKEN - 1, "w2", "0")).isZero();
        assertThat(this.witness.fencedRead("r0", TOKEN + 1, "w3")).isEqualTo("0");
    }
}
