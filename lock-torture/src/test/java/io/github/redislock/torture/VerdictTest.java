package io.github.redislock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each rule of {@link Verdict} on hand-made records: times are microseconds from {@link #T}, a clock value of the
 * size the workers record, and every test asserts the exact figures the rule produces.
 */
class VerdictTest {

    private static final long T = 1_700_000_000_000_000L;

    private static final Duration LEASE = Duration.ofSeconds(3);

    private static final long THREE_LEASES = 9_000_000;

    /** A fault on w1 from T+1000 to T+2000. */
    private static final Fault PAUSE = new Fault(T + 1000, T + 2000, Set.of("w1"), "w1 frozen");

    private static final Fault NONE = Fault.none(T + 100_000);

    private static final String NO_PROGRESS = "no progress on every resource within 3 leases after the fault";

    @Test
    void toldOverlapPassesWhereOverlapsAreAllowed() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w1:t0:1").in("r0").entered(1, 100, 3000).told(),
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1"));

        assertOverlaps(result, 1, 0);
        assertThat(result.passed()).isTrue();
    }

    @Test
    void toldOverlapFailsInStrictScenario() {
        ScenarioResult result = judge(Scenario.HEALTHY, NONE,
                section("w1:t0:1").in("r0").entered(1, 100, 300).told(),
                section("w2:t0:1").in("r0").entered(2, 200, 400).others("w1:t0:1"));

        assertOverlaps(result, 1, 0, "1 overlap(s) in a scenario that allows none");
    }

    @Test
    void untoldOverlapFailsWhereOverlapsAreAllowed() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w1:t0:1").in("r0").entered(1, 100, 3000),
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1"));

        assertOverlaps(result, 1, 1, "1 overlap(s) that no worker was told about");
    }

    @Test
    void overlapWithSectionWithoutRecordIsUntold() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1"));

        assertOverlaps(result, 1, 1, "1 overlap(s) that no worker was told about");
    }

    @Test
    void overlapWithSectionWithoutRecordIsToldWhenEntrantWasTold() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1").told());

        assertOverlaps(result, 1, 0);
    }

    @Test
    void overlapToldOnlyAfterTheOtherEnteredFailsWhereTheStoreKeepsItsLocks() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w1:t0:1").in("r0").entered(1, 100, 3000).toldAt(2501),
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1"));

        assertOverlaps(result, 1, 0, "1 overlap(s) told only after they began (isHeld() still true once the other "
                + "section had entered)");
        assertThat(result.lateOverlaps()).isEqualTo(1);
    }

    @Test
    void overlapToldWhenTheOtherEnteredIsInTime() {
        ScenarioResult result = judge(Scenario.WORKER_PARTITION, PAUSE,
                section("w1:t0:1").in("r0").entered(1, 100, 3000).toldAt(2500),
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1"));

        assertOverlaps(result, 1, 0);
        assertThat(result.lateOverlaps()).isZero();
    }

    @Test
    void overlapToldLateByOneAndInTimeByTheOtherIsInTime() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w1:t0:1").in("r0").entered(1, 100, 3000).toldAt(2900),
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1").toldAt(2400));

        assertOverlaps(result, 1, 0);
        assertThat(result.lateOverlaps()).isZero();
    }

    @Test
    void overlapToldLatePassesWhereTheStoreForgetsLocks() {
        Fault restart = new Fault(T + 1000, T + 2000, Set.of("w1", "w2"), "Redis killed and restarted empty");
        ScenarioResult result = judge(Scenario.REDIS_RESTART, restart,
                section("w1:t0:1").in("r0").entered(1, 100, 3000).toldAt(2900),
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1"),
                section("w2:t0:2").in("r0").entered(3, 3100, 3200));

        assertOverlaps(result, 1, 0);
        assertThat(result.lateOverlaps()).isEqualTo(1);
    }

    @Test
    void untoldOverlapIsNotCountedAsLate() {
        ScenarioResult result = judge(Scenario.REDIS_RESTART, PAUSE,
                section("w1:t0:1").in("r0").entered(1, 100, 3000),
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).others("w1:t0:1"),
                section("w2:t0:2").in("r0").entered(3, 3100, 3200));

        assertOverlaps(result, 1, 1, "1 overlap(s) that no worker was told about");
        assertThat(result.lateOverlaps()).isZero();
    }

    @Test
    void rejectedWriteFromWorkerNoFaultHitFails() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(2, 2500, 2600).outcome('V', 'R'));

        assertThat(result.rejected()).containsExactly(Map.entry("w2", 1));
        assertThat(result.failures()).containsExactly("writes of w2, which no fault hit, were rejected");
    }

    @Test
    void rejectedReadOrWriteFromFaultedWorkerPassesWhereAllowed() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w1:t0:1").in("r0").entered(2, 2500, 2600).outcome('V', 'R'),
                section("w1:t0:2").in("r0").entered(3, 2700, 2800).outcome('R', '-'),
                section("w2:t0:1").in("r0").entered(4, 2900, 3000));

        assertThat(result.rejected()).containsExactly(Map.entry("w1", 2));
        assertThat(result.accepted()).containsExactly(Map.entry("w2", 1));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void rejectedWriteFailsInStrictScenario() {
        ScenarioResult result = judge(Scenario.HEALTHY, NONE,
                section("w1:t0:1").in("r0").entered(2, 100, 200).outcome('V', 'R'));

        assertThat(result.failures()).containsExactly("1 rejected write(s) in a scenario that allows none",
                "writes of w1, which no fault hit, were rejected");
    }

    @Test
    void lostUpdateFails() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w1:t0:1").in("r0").entered(2, 2100, 2200),
                section("w2:t0:1").in("r0").entered(3, 2300, 2400).outcome('V', 'L'));

        assertThat(result.lostUpdates()).isEqualTo(1);
        assertThat(result.accepted()).containsExactly(Map.entry("w1", 1), Map.entry("w2", 1));
        assertThat(result.failures()).containsExactly("1 lost update(s)");
    }

    @Test
    void staleTokenWithRejectedWritePasses() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(5, 2100, 2200),
                section("w1:t0:1").in("r0").entered(5, 2300, 2400).outcome('V', 'R'),
                section("w1:t0:2").in("r0").entered(4, 2500, 2600).outcome('R', '-'),
                section("w2:t0:2").in("r0").entered(6, 2700, 2800));

        assertStale(result, 2, 0);
    }

    @Test
    void staleTokenWithAcceptedWriteFails() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(5, 2100, 2200),
                section("w1:t0:1").in("r0").entered(5, 2300, 2400));

        assertStale(result, 1, 1,
                "1 write(s) accepted from sections with a fencing token not above an earlier section's");
    }

    @Test
    void lowerTokenOfSectionEnteredBeforeOtherLeftIsNotStale() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(5, 2100, 2300),
                section("w1:t0:1").in("r0").entered(4, 2300, 2400).told());

        assertThat(result.staleTokens()).isZero();
    }

    @Test
    void staleTokensAreComparedWithinTheFirstResourceOnly() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r1").entered(9, 2100, 2200),
                section("w1:t0:1").in("r0", "r1").waitingFrom(2000).entered(3, 2300, 2400));

        assertThat(result.staleTokens()).isZero();
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void resourceNeverEnteredAfterFaultIsNoProgress() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(1, 100, 200),
                section("w2:t0:2").in("r1").entered(1, 2100, 2200));

        assertRecovery(result, null, NO_PROGRESS);
    }

    @Test
    void recoveryIsTheLastResourceToBeEnteredAgain() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(1, 2000 + 700, 2000 + 800),
                section("w2:t0:2").in("r1").entered(1, 2000 + 5000, 2000 + 5100),
                section("w2:t0:3").in("r1").entered(2, 2000 + 6000, 2000 + 6100));

        assertRecovery(result, 5000L);
    }

    @Test
    void recoveryOfThreeLeasesPasses() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(1, 2000 + THREE_LEASES, 2000 + THREE_LEASES + 100));

        assertRecovery(result, THREE_LEASES);
    }

    @Test
    void recoveryOverThreeLeasesFails() {
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").entered(1, 2001 + THREE_LEASES, 2001 + THREE_LEASES + 100));

        assertRecovery(result, THREE_LEASES + 1, NO_PROGRESS);
    }

    @Test
    void healthyRunWithExceptionsFails() {
        List<SectionRecord> records = List.of(section("w1:t0:1").in("r0").entered(1, 100, 200).record());
        ScenarioResult result = new Verdict(Scenario.HEALTHY, NONE, LEASE, records).judge("lettuce", "one Redis",
                Map.of("LockNotAcquiredException", 2L), Map.of(), Duration.ofSeconds(1));

        assertThat(result.recoveryMicros()).isZero();
        assertThat(result.failures())
            .containsExactly("lock calls threw in a healthy run: {LockNotAcquiredException=2}");
    }

    @Test
    void exceptionsUnderFaultPass() {
        List<SectionRecord> records = List.of(section("w1:t0:1").in("r0").entered(1, 2100, 2200).record());
        ScenarioResult result = new Verdict(Scenario.WORKER_PAUSE, PAUSE, LEASE, records).judge("lettuce", "one Redis",
                Map.of("LockNotAcquiredException", 2L), Map.of(), Duration.ofSeconds(1));

        assertThat(result.exceptions()).containsExactly(Map.entry("LockNotAcquiredException", 2L));
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void runWithoutSectionsFails() {
        ScenarioResult result = judge(Scenario.HEALTHY, NONE,
                section("w1:t0:1").in("r0").waitingFrom(100).gaveUpAt(200));

        assertThat(result.attempts()).isEqualTo(1);
        assertThat(result.sections()).isZero();
        assertThat(result.failures()).containsExactly("no section ran");
    }

    @Test
    void failAddsFailureFoundOutsideTheRecords() {
        Verdict verdict = new Verdict(Scenario.HEALTHY, NONE, LEASE,
                List.of(section("w1:t0:1").in("r0").entered(1, 100, 200).record()));
        verdict.fail("w2 did not stop within 60 s");

        ScenarioResult result = verdict.judge("lettuce", "one Redis", Map.of(), Map.of(), Duration.ofSeconds(1));

        assertThat(result.failures()).containsExactly("w2 did not stop within 60 s");
        assertThat(result.passed()).isFalse();
    }

    @Test
    void longestIdleMeasuresResourceFreeWhileAttemptWaits() {
        ScenarioResult result = judge(Scenario.HEALTHY, NONE,
                section("w1:t0:1").in("r0").waitingFrom(90).entered(1, 100, 200),
                section("w2:t0:1").in("r0").waitingFrom(150).entered(2, 260, 300),
                section("w2:t0:2").in("r0").waitingFrom(400).entered(3, 410, 500));

        assertThat(result.longestIdleMicros()).isEqualTo(60);
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void longestIdleCountsGiveUpAsEndOfWait() {
        ScenarioResult result = judge(Scenario.HEALTHY, NONE,
                section("w1:t0:1").in("r0").waitingFrom(90).entered(1, 100, 200),
                section("w2:t0:1").in("r0").waitingFrom(150).gaveUpAt(270));

        assertThat(result.longestIdleMicros()).isEqualTo(70);
    }

    @Test
    void longestIdleIgnoresGapBeforeResourceFirstEntered() {
        ScenarioResult result = judge(Scenario.HEALTHY, NONE,
                section("w1:t0:1").in("r0").waitingFrom(0).entered(1, 500, 600),
                section("w2:t0:1").in("r0").waitingFrom(0).entered(2, 600, 640),
                section("w3:t0:1").in("r0").waitingFrom(550).entered(3, 680, 700));

        assertThat(result.longestIdleMicros()).isEqualTo(40);
    }

    @Test
    void longestIdleIgnoresGapThatTouchesTheFault() {
        // Fault 1000..2000, r0 entered again at 2100: gaps from 1000 to 2100 do not count.
        ScenarioResult result = judge(Scenario.WORKER_PAUSE, PAUSE,
                section("w2:t0:1").in("r0").waitingFrom(90).entered(1, 100, 200),
                section("w2:t0:2").in("r0").waitingFrom(150).entered(2, 230, 900),
                section("w2:t0:3").in("r0").waitingFrom(800).entered(3, 2100, 2200),
                section("w3:t0:1").in("r0").waitingFrom(2150).entered(4, 2250, 2300));

        assertThat(result.recoveryMicros()).isEqualTo(100);
        assertThat(result.longestIdleMicros()).isEqualTo(50);
        assertThat(result.failures()).isEmpty();
    }

    @Test
    void longestIdleCountsMultiKeyAttemptAsInsideFromItsWaitStart() {
        // Without the rule, r0 would be free from 200 to 300 while w3 waits; the two-key attempt holds it then.
        ScenarioResult result = judge(Scenario.HEALTHY, NONE,
                section("w1:t0:1").in("r0").waitingFrom(90).entered(1, 100, 200),
                section("w2:t0:1").in("r0", "r1").waitingFrom(150).entered(2, 300, 400),
                section("w3:t0:1").in("r0").waitingFrom(160).entered(3, 450, 500));

        assertThat(result.longestIdleMicros()).isEqualTo(50);
    }

    private static void assertOverlaps(ScenarioResult result, int overlaps, int untold, String... failures) {
        assertThat(result.overlaps()).isEqualTo(overlaps);
        assertThat(result.untoldOverlaps()).isEqualTo(untold);
        assertThat(result.failures()).containsExactly(failures);
    }

    private static void assertStale(ScenarioResult result, int stale, int accepted, String... failures) {
        assertThat(result.staleTokens()).isEqualTo(stale);
        assertThat(result.staleAccepted()).isEqualTo(accepted);
        assertThat(result.failures()).containsExactly(failures);
    }

    @Test
    void measuresTheFaultWindowTheLongestFailedCallAndWhenTheWorkerItHitCameBack() {
        ScenarioResult result = judge(Scenario.WORKER_PARTITION, PAUSE,
                section("w2:t0:1").waitingFrom(1000).entered(1, 1100, 1200),
                section("w2:t0:2").waitingFrom(1200).entered(2, 1500, 1600),
                section("w3:t0:1").waitingFrom(900).entered(3, 1700, 1800),
                section("w3:t1:1").waitingFrom(0).gaveUpAt(3000).threw("LockNotAcquiredException"),
                section("w1:t0:1").waitingFrom(500).gaveUpAt(2500).threw("LockException"),
                section("w1:t0:2").waitingFrom(2500).entered(4, 2900, 3000));

        assertThat(result.failures()).isEmpty();
        // Three sections entered within the fault's 1000 µs, after waits of 100, 300 and 800 µs.
        assertThat(result.measures().sectionsPerSecond()).isEqualTo(3000.0);
        assertThat(result.measures().waitMedianMicros()).isEqualTo(300);
        assertThat(result.measures().waitP99Micros()).isEqualTo(800);
        // A lock not got within its wait is no failure of the call; the LockException after 2000 µs is.
        assertThat(result.measures().longestFailedCallMicros()).isEqualTo(2000);
        assertThat(result.measures().rejoinMicros()).isEqualTo(900L);
    }

    @Test
    void rejoinIsNotMeasuredForFaultsThatHitEveryWorker() {
        ScenarioResult result = judge(Scenario.REDIS_PARTITION, new Fault(T + 1000, T + 2000, Set.of("w1", "w2"),
                "Redis cut off"), section("w1:t0:1").entered(1, 2100, 2200), section("w2:t0:1").entered(2, 2300, 2400));

        assertThat(result.measures().rejoinMicros()).isNull();
    }

    private static void assertRecovery(ScenarioResult result, @Nullable Long micros, String... failures) {
        assertThat(result.recoveryMicros()).isEqualTo(micros);
        assertThat(result.failures()).containsExactly(failures);
    }

    private static ScenarioResult judge(Scenario scenario, Fault fault, Section... sections) {
        List<SectionRecord> records = Arrays.stream(sections).map(Section::record).toList();
        return new Verdict(scenario, fault, LEASE, records).judge("lettuce", "one Redis", Map.of(), Map.of(),
                Duration.ofSeconds(1));
    }

    private static Section section(String member) {
        return new Section(member);
    }

    /**
     * A record under construction: a renewed section of one resource (two resources make it a two-key section),
     * with accepted read and write, not told (held until it left), that threw nothing. Times are offsets from {@link #T}.
     */
    private static final class Section {

        private final String member;

        private List<String> resources = List.of("r0");

        private long token = -1;

        private Long waitStart;

        private long enter;

        private long leave;

        private final List<String> others = new ArrayList<>();

        private char read = 'V';

        private char write = 'A';

        private boolean told;

        private Long heldUntil;

        private String exception = "-";

        Section(String member) {
            this.member = member;
        }

        Section in(String... resources) {
            this.resources = List.of(resources);
            return this;
        }

        Section waitingFrom(long waitStart) {
            this.waitStart = waitStart;
            return this;
        }

        Section entered(long token, long enter, long leave) {
            this.token = token;
            this.enter = T + enter;
            this.leave = T + leave;
            return this;
        }

        Section gaveUpAt(long leave) {
            this.leave = T + leave;
            return outcome('-', '-');
        }

        Section others(String... others) {
            this.others.addAll(List.of(others));
            return this;
        }

        /** What the fencing store said to the read and the write ({@link SectionRecord#read()}). */
        Section outcome(char read, char write) {
            this.read = read;
            this.write = write;
            return this;
        }

        /** Told, and {@code isHeld()} false from its entry on (unless {@link #toldAt} says when). */
        Section told() {
            this.told = true;
            return this;
        }

        /** Told, with {@code isHeld()} last true at this offset from {@link #T}. */
        Section toldAt(long heldUntil) {
            this.told = true;
            this.heldUntil = heldUntil;
            return this;
        }

        Section threw(String exception) {
            this.exception = exception;
            return this;
        }

        SectionRecord record() {
            String worker = this.member.substring(0, this.member.indexOf(':'));
            long waitStart = (this.waitStart != null) ? T + this.waitStart : this.enter - 1;
            SectionKind kind = (this.resources.size() > 1) ? SectionKind.MULTI_KEY : SectionKind.RENEWED;
            // Not told: held to the end. Told: from its entry on, unless told when.
            long heldUntil = (this.heldUntil != null) ? T + this.heldUntil : this.told ? this.enter : this.leave;
            return new SectionRecord(worker, this.member, kind, this.resources, this.token, waitStart,
                    this.enter, this.leave, List.copyOf(this.others), this.read, this.write, this.told, heldUntil,
                    this.exception);
        }
    }
}
