package io.github.redislock.torture;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each rule of {@link TermVerdict} on hand-made terms: times are microseconds from {@link #T}, and every test
 * asserts the exact figures the rule produces.
 */
class TermVerdictTest {

    private static final long T = 1_700_000_000_000_000L;

    @Test
    void handOverAfterTheFormerLeaderStoppedSayingItLedPasses() {
        TermVerdict verdict = TermVerdict.of(List.of(term("w1", 10, 0, 500, 510, "YIELDED"),
                term("w2", 11, 600, 900, 0, "-")), List.of());

        assertThat(verdict.twoLeaders()).isZero();
        assertThat(verdict.reasons()).containsEntry("YIELDED", 1).containsEntry("-", 1);
        assertThat(verdict.failures(Scenario.ELECTION_WORKER_PAUSE)).isEmpty();
    }

    @Test
    void leaderToldItLedAfterTheNextGrantAndNeverToldItLostFails() {
        TermVerdict verdict = TermVerdict.of(List.of(term("w1", 10, 0, 700, 710, "YIELDED"),
                term("w2", 11, 600, 900, 0, "-")), List.of());

        assertThat(verdict.twoLeaders()).isEqualTo(1);
        assertThat(verdict.untold()).isEqualTo(1);
        assertThat(verdict.failures(Scenario.ELECTION_REDIS_RESTART)).containsExactly("1 time(s) two workers were "
                + "told they led at once and the earlier one was never told it lost its term");
    }

    @Test
    void leaderToldLostOnlyAfterTheNextGrantFailsWhereTheStoreKeepsTheLock() {
        TermVerdict verdict = TermVerdict.of(List.of(term("w1", 10, 0, 700, 710, "LOST"),
                term("w2", 11, 600, 900, 0, "-")), List.of());

        assertThat(verdict.late()).isEqualTo(1);
        assertThat(verdict.failures(Scenario.ELECTION_WORKER_PARTITION)).containsExactly("1 time(s) two workers were "
                + "told they led at once (the earlier one told it lost its term only after the other's grant)");
    }

    @Test
    void leaderToldLostOnlyAfterTheNextGrantIsCountedWhereTheStoreForgetsTheLock() {
        TermVerdict verdict = TermVerdict.of(List.of(term("w1", 10, 0, 700, 710, "LOST"),
                term("w2", 11, 600, 900, 0, "-")), List.of());

        assertThat(verdict.late()).isEqualTo(1);
        assertThat(verdict.failures(Scenario.ELECTION_REDIS_RESTART)).isEmpty();
    }

    @Test
    void leaderSectionHeldAfterTheNextGrantCountsAsToldItLed() {
        SectionRecord section = new SectionRecord("w1", "w1:t0:4", SectionKind.LEADER,
                List.of(SectionKind.LEADER_RESOURCE), 10, T + 400, T + 410, T + 800, List.of(), 'V', 'R', true,
                T + 650, "-");

        TermVerdict verdict = TermVerdict.of(List.of(term("w1", 10, 0, 500, 510, "LOST"),
                term("w2", 11, 600, 900, 0, "-")), List.of(section));

        assertThat(verdict.twoLeaders()).isEqualTo(1);
        assertThat(verdict.late()).isEqualTo(1);
    }

    @Test
    void termNotAboveAnEarlierOneFails() {
        TermVerdict verdict = TermVerdict.of(List.of(term("w1", 10, 0, 500, 510, "LOST"),
                term("w2", 9, 600, 900, 0, "-")), List.of());

        assertThat(verdict.decreasing()).containsExactly("w2:9 after w1:10");
        assertThat(verdict.failures(Scenario.ELECTION_WORKER_PAUSE)).containsExactly("terms not increasing: w2:9 after w1:10");
    }

    @Test
    void runWithoutTermsFails() {
        assertThat(TermVerdict.of(List.of(), List.of()).failures(Scenario.ELECTION_WORKER_PAUSE))
            .containsExactly("no term was granted");
    }

    @Test
    void leaderSectionsOfOneTermAreNotStaleTokens() {
        List<SectionRecord> sections = List.of(leaderSection("w1:t0:1", 10, 100, 200),
                leaderSection("w1:t0:2", 10, 300, 400), leaderSection("w2:t0:1", 9, 500, 600));

        assertThat(StaleTokens.in(sections)).extracting(SectionRecord::member).containsExactly("w2:t0:1");
    }

    @Test
    void termRecordsReadBackAsWritten() {
        TermRecord record = term("w3", 1_700_000_000_123_456L, 10, 20, 0, "-");

        assertThat(TermRecord.parse(record.format())).isEqualTo(record);
    }

    private static TermRecord term(String worker, long term, long granted, long leaderUntil, long ended,
            String reason) {
        return new TermRecord(worker, term, T + granted, T + leaderUntil, (ended == 0) ? 0 : T + ended, reason);
    }

    private static SectionRecord leaderSection(String member, long token, long enter, long leave) {
        return new SectionRecord(member.substring(0, 2), member, SectionKind.LEADER,
                List.of(SectionKind.LEADER_RESOURCE), token, T + enter, T + enter, T + leave, List.of(), 'V', 'A',
                false, T + leave, "-");
    }
}
