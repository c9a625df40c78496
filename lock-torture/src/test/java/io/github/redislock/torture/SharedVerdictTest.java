package io.github.redislock.torture;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The verdict on the shared workloads' records, made by hand: a permit's breach judged as a group (told when any
 * section in it was told), a writer's beside readers as pairs, and stale tokens between sections that may hold a key
 * together compared from when the later one began to wait. Times are microseconds from {@link #T}.
 */
class SharedVerdictTest {

    private static final long T = 1_700_000_000_000_000L;

    private static final Duration LEASE = Duration.ofSeconds(3);

    private static final Fault PAUSE = new Fault(T + 1000, T + 2000, Set.of("w1"), "w1 frozen");

    private static final Fault RESTART = new Fault(T + 1000, T + 2000, Set.of("w1", "w2", "w3"), "Redis restarted");

    @Test
    void aPermitBreachToldByOneHolderInsideIsTold() {
        ScenarioResult result = judge(Scenario.SEMAPHORE_WORKER_PAUSE, PAUSE,
                section("w1:t0:1:P2", 1, 100, 3000).told(),
                section("w2:t0:1:P2", 2, 2100, 2600),
                section("w3:t0:1:P2", 3, 2500, 2700).others("w1:t0:1:P2", "w2:t0:1:P2"));

        assertThat(result.overlaps()).isEqualTo(1);
        assertThat(result.untoldOverlaps()).isZero();
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aPermitBreachNobodyInsideWasToldOfFails() {
        ScenarioResult result = judge(Scenario.SEMAPHORE_WORKER_PAUSE, PAUSE,
                section("w1:t0:1:P2", 1, 100, 3000),
                section("w2:t0:1:P2", 2, 2100, 2600),
                section("w3:t0:1:P2", 3, 2500, 2700).others("w1:t0:1:P2", "w2:t0:1:P2"));

        assertThat(result.untoldOverlaps()).isEqualTo(1);
        assertThat(result.failures()).containsExactly("1 overlap(s) that no worker was told about");
    }

    @Test
    void aPermitBreachFailsInTheStrictScenario() {
        ScenarioResult result = judge(Scenario.SEMAPHORE_HEALTHY, Fault.none(T + 100_000),
                section("w1:t0:1:P2", 1, 100, 3000).told(),
                section("w2:t0:1:P2", 2, 2100, 2600),
                section("w3:t0:1:P2", 3, 2500, 2700).others("w1:t0:1:P2", "w2:t0:1:P2"));

        assertThat(result.failures()).containsExactly("1 overlap(s) in a scenario that allows none");
    }

    @Test
    void aWriterBesideTwoReadersIsTwoOverlapsEachToBeTold() {
        ScenarioResult result = judge(Scenario.READ_WRITE_WORKER_PAUSE, PAUSE,
                section("w1:t0:1:R", 1, 100, 3000).told(),
                section("w2:t0:1:R", 2, 200, 3000),
                section("w3:t0:1:W", 3, 2500, 2700).others("w1:t0:1:R", "w2:t0:1:R"));

        assertThat(result.overlaps()).isEqualTo(2);
        assertThat(result.untoldOverlaps()).isEqualTo(1);
        assertThat(result.failures()).containsExactly("1 overlap(s) that no worker was told about");
    }

    @Test
    void aBreachToldLatePassesWhenTheFaultMakesTheStoreForget() {
        ScenarioResult result = judge(Scenario.READ_WRITE_REDIS_RESTART, RESTART,
                section("w1:t0:1:W", 1, 100, 3000).toldAt(2900),
                section("w2:t0:1:R", 2, 2500, 2700).others("w1:t0:1:W"));

        assertThat(result.lateOverlaps()).isEqualTo(1);
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aBreachToldLateFailsWhenTheStoreKeepsItsLocks() {
        ScenarioResult result = judge(Scenario.READ_WRITE_WORKER_PAUSE, PAUSE,
                section("w1:t0:1:W", 1, 100, 3000).toldAt(2900),
                section("w2:t0:1:R", 2, 2500, 2700).others("w1:t0:1:W"));

        assertThat(result.failures()).containsExactly("1 overlap(s) told only after they began (isHeld() still "
                + "true once the other section had entered)");
    }

    @Test
    void aReaderWithALowerTokenThatBeganWaitingBeforeAnotherLeftIsNotStale() {
        ScenarioResult result = judge(Scenario.READ_WRITE_HEALTHY, Fault.none(T + 100_000),
                section("w1:t0:1:R", 5, 100, 200),
                section("w2:t0:1:R", 4, 300, 400).waitingFrom(50));

        assertThat(result.staleTokens()).isZero();
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void aReaderWithALowerTokenThatBeganWaitingAfterAnotherLeftIsStale() {
        ScenarioResult result = judge(Scenario.READ_WRITE_HEALTHY, Fault.none(T + 100_000),
                section("w1:t0:1:R", 5, 100, 200),
                section("w2:t0:1:R", 4, 300, 400).waitingFrom(250));

        assertThat(result.staleTokens()).isEqualTo(1);
    }

    @Test
    void aReaderWithALowerTokenThanAWriterThatLeftBeforeItEnteredIsStale() {
        ScenarioResult result = judge(Scenario.READ_WRITE_HEALTHY, Fault.none(T + 100_000),
                section("w1:t0:1:W", 5, 100, 200),
                section("w2:t0:1:R", 4, 300, 400).waitingFrom(50));

        assertThat(result.staleTokens()).isEqualTo(1);
    }

    @Test
    void aStaleWriterWhoseWriteWasAcceptedFails() {
        ScenarioResult result = judge(Scenario.READ_WRITE_WORKER_PAUSE, PAUSE,
                section("w2:t0:1:R", 5, 100, 200),
                section("w1:t0:1:W", 4, 2300, 2400).waitingFrom(50));

        assertThat(result.staleTokens()).isEqualTo(1);
        assertThat(result.failures()).containsExactly("1 write(s) accepted from sections with a fencing token not "
                + "above an earlier section's");
    }

    private static ScenarioResult judge(Scenario scenario, Fault fault, Section... sections) {
        List<SectionRecord> records = java.util.Arrays.stream(sections).map(Section::record).toList();
        return new Verdict(scenario, fault, LEASE, records).judge("lettuce", "one Redis", Map.of(), Map.of(),
                Duration.ofSeconds(1));
    }

    private static Section section(String member, long token, long enter, long leave) {
        return new Section(member, token, enter, leave);
    }

    /**
     * A shared section of resource r0, under construction: it waited from just before it entered, its fenced calls
     * are those its share makes (a writer's read and write, a reader's read, none for a permit), all accepted, and
     * it was not told (held until it left).
     */
    private static final class Section {

        private final String member;

        private final long token;

        private final long enter;

        private final long leave;

        private long waitStart;

        private List<String> others = List.of();

        private boolean told;

        private long heldUntil;

        Section(String member, long token, long enter, long leave) {
            this.member = member;
            this.token = token;
            this.enter = T + enter;
            this.leave = T + leave;
            this.waitStart = this.enter - 1;
            this.heldUntil = this.leave;
        }

        Section waitingFrom(long waitStart) {
            this.waitStart = T + waitStart;
            return this;
        }

        Section others(String... others) {
            this.others = List.of(others);
            return this;
        }

        /** Told, and {@code isHeld()} false from its entry on. */
        Section told() {
            return toldAt(this.enter - T);
        }

        /** Told, with {@code isHeld()} last true at this offset from {@link #T}. */
        Section toldAt(long heldUntil) {
            this.told = true;
            this.heldUntil = T + heldUntil;
            return this;
        }

        SectionRecord record() {
            Share share = Share.of(this.member);
            char read = share.isPermit() ? '-' : 'V';
            char write = (share.isPermit() || share.isReader()) ? '-' : 'A';
            return new SectionRecord(this.member.substring(0, 2), this.member, SectionKind.RENEWED, List.of("r0"),
                    this.token, this.waitStart, this.enter, this.leave, this.others, read, write, this.told,
                    this.heldUntil, "-");
        }
    }
}
