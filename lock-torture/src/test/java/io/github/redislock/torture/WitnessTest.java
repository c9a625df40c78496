package io.github.redislock.torture;

import java.util.List;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The witness's scripts against a real Redis: occupancy sets and the fencing store; for the shared workloads the
 * key's bound on entering (readers together, a writer alone, at most n permits) and readers fenced against writers,
 * writers against readers.
 */
class WitnessTest {

    /** A fencing token of the size of a microsecond clock value, exact in Lua's doubles up to 2^53. */
    private static final long CLOCK_TOKEN = 1_700_000_000_000_123L;

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
    void enterReturnsTheWitnessTimeAndTheMembersAlreadyInside() {
        long before = this.witness.timeMicros();
        Witness.Entry first = this.witness.enter(List.of("r0"), "w1:t0:1");
        Witness.Entry second = this.witness.enter(List.of("r0"), "w2:t0:1");
        long after = this.witness.timeMicros();

        assertThat(first.others()).isEmpty();
        assertThat(second.others()).containsExactly("w1:t0:1");
        assertThat(first.micros()).isBetween(before, second.micros());
        assertThat(second.micros()).isLessThanOrEqualTo(after);
        assertThat(members("r0")).containsExactlyInAnyOrder("w1:t0:1", "w2:t0:1");
    }

    @Test
    void enterOfTwoResourcesReturnsTheMembersOfEach() {
        this.witness.enter(List.of("r0"), "w1:t0:1");
        this.witness.enter(List.of("r1"), "w2:t0:1");

        Witness.Entry entry = this.witness.enter(List.of("r0", "r1"), "w3:t0:1");

        assertThat(entry.others()).containsExactly("w1:t0:1", "w2:t0:1");
        assertThat(members("r0")).containsExactlyInAnyOrder("w1:t0:1", "w3:t0:1");
        assertThat(members("r1")).containsExactlyInAnyOrder("w2:t0:1", "w3:t0:1");
    }

    @Test
    void enterNamesASectionInsideBothResourcesOnce() {
        this.witness.enter(List.of("r0", "r1"), "w1:t0:1");

        Witness.Entry entry = this.witness.enter(List.of("r0", "r1"), "w2:t0:1");

        assertThat(entry.others()).containsExactly("w1:t0:1");
    }

    @Test
    void enterSkipsMembersOfDeadWorkers() {
        this.witness.enter(List.of("r0"), "w1:t0:1");
        this.witness.enter(List.of("r0"), "w2:t0:1");
        this.witness.command("SADD", "dead", "w1");

        Witness.Entry entry = this.witness.enter(List.of("r0"), "w3:t0:1");

        assertThat(entry.others()).containsExactly("w2:t0:1");
    }

    @Test
    void leaveRemovesTheMember() {
        Witness.Entry entry = this.witness.enter(List.of("r0", "r1"), "w1:t0:1");

        long left = this.witness.leave(List.of("r0", "r1"), "w1:t0:1");

        assertThat(left).isGreaterThanOrEqualTo(entry.micros());
        assertThat(members("r0")).isEmpty();
        assertThat(members("r1")).isEmpty();
        assertThat(this.witness.enter(List.of("r0"), "w2:t0:1").others()).isEmpty();
    }

    @Test
    void fencedReadReturnsTheValueAndRaisesTheHighestToken() {
        assertThat(this.witness.fencedRead("r0", 10, "w1")).isEqualTo("0");
        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "max")).isEqualTo("10");

        assertThat(this.witness.fencedRead("r0", 12, "w2")).isEqualTo("0");
        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "max")).isEqualTo("12");
    }

    @Test
    void fencedReadWithLowerTokenIsRejectedAndCountedForTheWorker() {
        this.witness.fencedRead("r0", 10, "w1");

        assertThat(this.witness.fencedRead("r0", 9, "w2")).isNull();
        assertThat(this.witness.fencedRead("r0", 8, "w2")).isNull();

        assertThat(this.witness.command("HGET", Witness.REJECTED, "w2")).isEqualTo("2");
        assertThat(this.witness.command("HGET", Witness.REJECTED, "w1")).isNull();
        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "max")).isEqualTo("10");
    }

    @Test
    void fencedReadWithEqualTokenIsAccepted() {
        this.witness.fencedRead("r0", 10, "w1");

        assertThat(this.witness.fencedRead("r0", 10, "w1")).isEqualTo("0");
        assertThat(this.witness.command("HGET", Witness.REJECTED, "w1")).isNull();
    }

    @Test
    void fencedWriteStoresTheValueReadPlusOne() {
        String read = this.witness.fencedRead("r0", 10, "w1");

        assertThat(this.witness.fencedWrite("r0", 10, "w1", read)).isEqualTo(1);

        assertThat(this.witness.fencedRead("r0", 11, "w2")).isEqualTo("1");
        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "accepted")).isEqualTo("1");
    }

    @Test
    void fencedWriteOverAnUpdateItDidNotReadIsALostUpdate() {
        String first = this.witness.fencedRead("r0", 10, "w1");
        String second = this.witness.fencedRead("r0", 10, "w2");
        assertThat(this.witness.fencedWrite("r0", 10, "w2", second)).isEqualTo(1);

        assertThat(this.witness.fencedWrite("r0", 10, "w1", first)).isEqualTo(2);

        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "value")).isEqualTo("1");
        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "accepted")).isEqualTo("2");
    }

    @Test
    void fencedWriteWithLowerTokenIsRejectedAndCounted() {
        String read = this.witness.fencedRead("r0", 10, "w1");
        this.witness.fencedRead("r0", 11, "w2");

        assertThat(this.witness.fencedWrite("r0", 10, "w1", read)).isZero();

        assertThat(this.witness.command("HGET", Witness.REJECTED, "w1")).isEqualTo("1");
        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "value")).isNull();
        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "accepted")).isNull();
    }

    @Test
    void clockSizedTokensOneApartCompareExactly() {
        String read = this.witness.fencedRead("r0", CLOCK_TOKEN + 1, "w1");
        assertThat(read).isEqualTo("0");

        assertThat(this.witness.fencedRead("r0", CLOCK_TOKEN, "w2")).isNull();
        assertThat(this.witness.fencedWrite("r0", CLOCK_TOKEN, "w2", read)).isZero();
        assertThat(this.witness.fencedRead("r0", CLOCK_TOKEN + 1, "w1")).isEqualTo("0");
        assertThat(this.witness.fencedWrite("r0", CLOCK_TOKEN + 1, "w1", read)).isEqualTo(1);

        assertThat(this.witness.command("HGET", Witness.fenceKey("r0"), "max"))
            .isEqualTo(Long.toString(CLOCK_TOKEN + 1));
        assertThat(this.witness.command("HGET", Witness.REJECTED, "w2")).isEqualTo("2");
    }

    private List<Object> members(String resource) {
        return List.copyOf((List<?>) this.witness.command("SMEMBERS", Witness.occupancyKey(resource)));
    }

    // The shared workloads: the key's bound on entering, readers in the fencing store.

    @Test
    void readersEnterTogether() {
        this.witness.enter(List.of("r0"), "w1:t0:1:R");
        this.witness.enter(List.of("r0"), "w2:t0:1:R");

        Witness.Entry third = this.witness.enter(List.of("r0"), "w3:t0:1:R");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void aWriterFindsEveryoneInside() {
        this.witness.enter(List.of("r0"), "w1:t0:1:R");
        this.witness.enter(List.of("r0"), "w2:t0:1:R");

        Witness.Entry writer = this.witness.enter(List.of("r0"), "w3:t0:1:W");

        assertThat(writer.others()).containsExactlyInAnyOrder("w1:t0:1:R", "w2:t0:1:R");
    }

    @Test
    void aReaderFindsOnlyTheWritersInside() {
        this.witness.enter(List.of("r0"), "w1:t0:1:R");
        this.witness.enter(List.of("r0"), "w2:t0:1:W");

        Witness.Entry reader = this.witness.enter(List.of("r0"), "w3:t0:1:R");

        assertThat(reader.others()).containsExactly("w2:t0:1:W");
    }

    @Test
    void permitsUpToTheCountAreNoBreach() {
        this.witness.enter(List.of("r0"), "w1:t0:1:P3");
        this.witness.enter(List.of("r0"), "w2:t0:1:P3");

        Witness.Entry third = this.witness.enter(List.of("r0"), "w3:t0:1:P3");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void onePermitMoreThanTheCountFindsEveryHolderInside() {
        this.witness.enter(List.of("r0"), "w1:t0:1:P2");
        this.witness.enter(List.of("r0"), "w2:t0:1:P2");

        Witness.Entry third = this.witness.enter(List.of("r0"), "w3:t0:1:P2");

        assertThat(third.others()).containsExactlyInAnyOrder("w1:t0:1:P2", "w2:t0:1:P2");
    }

    @Test
    void aPermitLeftMakesRoomAgain() {
        this.witness.enter(List.of("r0"), "w1:t0:1:P2");
        this.witness.enter(List.of("r0"), "w2:t0:1:P2");
        this.witness.leave(List.of("r0"), "w1:t0:1:P2");

        Witness.Entry third = this.witness.enter(List.of("r0"), "w3:t0:1:P2");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void aPermitOfADeadWorkerTakesNoRoom() {
        this.witness.enter(List.of("r0"), "w1:t0:1:P2");
        this.witness.enter(List.of("r0"), "w2:t0:1:P2");
        this.witness.command("SADD", "dead", "w1");

        Witness.Entry third = this.witness.enter(List.of("r0"), "w3:t0:1:P2");

        assertThat(third.others()).isEmpty();
    }

    @Test
    void aReaderIsRefusedBelowTheHighestWriter() {
        this.witness.fencedRead("r0", CLOCK_TOKEN, "w1");

        assertThat(this.witness.fencedLook("r0", CLOCK_TOKEN - 1, "w2")).isNull();
        assertThat(this.witness.fencedLook("r0", CLOCK_TOKEN, "w3")).isEqualTo("0");
        assertThat(this.witness.command("HGET", Witness.REJECTED, "w2")).isEqualTo("1");
    }

    @Test
    void readersAreNotRefusedBelowEachOther() {
        this.witness.fencedLook("r0", CLOCK_TOKEN + 5, "w1");

        assertThat(this.witness.fencedLook("r0", CLOCK_TOKEN, "w2")).isEqualTo("0");
    }

    @Test
    void aWriterIsRefusedBelowTheHighestReader() {
        this.witness.fencedLook("r0", CLOCK_TOKEN, "w1");

        assertThat(this.witness.fencedRead("r0", CLOCK_TOKEN - 1, "w2")).isNull();
        assertThat(this.witness.fencedWrite("r0", CLOCK_TOKEN - 1, "w2", "0")).isZero();
        assertThat(this.witness.fencedRead("r0", CLOCK_TOKEN + 1, "w3")).isEqualTo("0");
    }
}
