package io.github.redislock.torture;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The one-line form in which workers leave their records in the witness. */
class SectionRecordTest {

    private static final SectionRecord ALONE = new SectionRecord("w1", "w1:t3:17", SectionKind.FIXED, List.of("r2"),
            1_700_000_000_000_001L, 1_700_000_000_000_000L, 1_700_000_000_000_500L, 1_700_000_000_009_000L,
            List.of(), 'V', 'A', false, 1_700_000_000_008_900L, "-");

    private static final SectionRecord TWO_KEYS = new SectionRecord("w2", "w2:t0:4", SectionKind.MULTI_KEY,
            List.of("r0", "r1"), 42, 100, 200, 300, List.of("w1:t1:9", "w3:t2:1"), 'R', '-', true,
            250, "LockLostException");

    @Test
    void formatsOneFieldPerComponentWithEmptyOthers() {
        assertThat(ALONE.format()).isEqualTo(
                "w1|w1:t3:17|FIXED|r2|1700000000000001|1700000000000000|1700000000000500|1700000000009000||V|A|0"
                        + "|1700000000008900|-");
    }

    @Test
    void parsesWhatItFormattedWithoutOthers() {
        SectionRecord parsed = SectionRecord.parse(ALONE.format());

        assertThat(parsed).isEqualTo(ALONE);
        assertThat(parsed.others()).isEmpty();
    }

    @Test
    void parsesWhatItFormattedWithTwoResourcesAndOthers() {
        String line = TWO_KEYS.format();

        assertThat(line).isEqualTo("w2|w2:t0:4|MULTI_KEY|r0,r1|42|100|200|300|w1:t1:9,w3:t2:1|R|-|1|250|LockLostException");
        SectionRecord parsed = SectionRecord.parse(line);
        assertThat(parsed).isEqualTo(TWO_KEYS);
        assertThat(parsed.resource()).isEqualTo("r0");
        assertThat(parsed.told()).isTrue();
    }

    @Test
    void lockNotAcquiredIsNotEntered() {
        SectionRecord gaveUp = SectionRecord
            .parse("w1|w1:t0:1|RENEWED|r0|-1|100|0|3100||-|-|0|0|LockNotAcquiredException");

        assertThat(gaveUp.entered()).isFalse();
        assertThat(gaveUp.token()).isEqualTo(-1);
        assertThat(ALONE.entered()).isTrue();
    }

    @Test
    void rejectsLineWithTooFewFields() {
        assertThatIllegalArgumentException().isThrownBy(() -> SectionRecord.parse("w1|w1:t0:1|RENEWED"))
            .withMessage("Not a section record: w1|w1:t0:1|RENEWED");
    }

    @Test
    void rejectsLineWithTokenThatIsNotANumber() {
        String line = "w1|w1:t0:1|RENEWED|r0|x|100|200|300||V|A|0|250|-";

        assertThatIllegalArgumentException().isThrownBy(() -> SectionRecord.parse(line))
            .withMessageStartingWith("Not a section record: " + line);
    }

    @Test
    void rejectsLineWithUnknownKind() {
        String line = "w1|w1:t0:1|SIDEWAYS|r0|1|100|200|300||V|A|0|250|-";

        assertThatIllegalArgumentException().isThrownBy(() -> SectionRecord.parse(line))
            .withMessageStartingWith("Not a section record: " + line);
    }

    @Test
    void rejectsLineWithEmptyReadOutcome() {
        String line = "w1|w1:t0:1|RENEWED|r0|1|100|200|300|||A|0|250|-";

        assertThatIllegalArgumentException().isThrownBy(() -> SectionRecord.parse(line))
            .withMessageStartingWith("Not a section record: " + line);
    }
}
