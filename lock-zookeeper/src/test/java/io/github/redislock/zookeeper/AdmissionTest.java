package io.github.redislock.zookeeper;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redislock.engine.Sharing;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of a key's line, on lines written out by hand (the store reads them from ZooKeeper; the store tests
 * show the rules at work there): node names read back, who is admitted, who mismatches, who watches what.
 */
class AdmissionTest {

    private static final String PROTECTION = "_c_0f2d3a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b-";

    /** A line of nodes named as the store names them, in this order, numbered from 0. */
    private static List<LineNode> line(String... prefixes) {
        List<LineNode> line = new ArrayList<>();
        for (int i = 0; i < prefixes.length; i++) {
            line.add(LineNode.parse(PROTECTION + prefixes[i] + String.format("%010d", i)));
        }
        return line;
    }

    @Test
    void nodeNamesCarryTheirKind() {
        assertThat(LineNode.parse(PROTECTION + "lock-0000000007"))
            .isEqualTo(new LineNode(PROTECTION + "lock-0000000007", Sharing.EXCLUSIVE, "0000000007"));
        assertThat(LineNode.parse(PROTECTION + "read-0000000001").sharing()).isEqualTo(Sharing.READ);
        assertThat(LineNode.parse(PROTECTION + "permits5-0000000001").sharing()).isEqualTo(Sharing.permits(5));
        assertThat(LineNode.parse(PROTECTION + LineNode.prefix(Sharing.permits(Integer.MAX_VALUE)) + "0000000001")
            .sharing()).isEqualTo(Sharing.permits(Integer.MAX_VALUE));
        assertThat(List.of(Sharing.EXCLUSIVE, Sharing.READ, Sharing.permits(2))).map(LineNode::prefix)
            .containsExactly("lock-", "read-", "permits2-");
    }

    @Test
    void namesOfNoNodeOfOursAreLeftOut() {
        assertThat(List.of("lock-0000000001", PROTECTION + "permits1-0000000001", PROTECTION + "permits0-0000000001",
                PROTECTION + "permits2147483648-0000000001", PROTECTION + "permits05-0000000001",
                PROTECTION + "write-0000000001", PROTECTION + "read-000000001"))
            .allSatisfy((name) -> assertThat(LineNode.parse(name)).as(name).isNull());
    }

    @Test
    void aWriterIsAdmittedFirstAndOtherwiseWatchesTheNodeJustBeforeIt() {
        List<LineNode> line = line("read-", "read-", "lock-");
        assertThat(Admission.judge(line, 2).watch()).containsExactly(line.get(1));
        assertThat(Admission.judge(line("lock-"), 0).admitted()).isTrue();
    }

    @Test
    void aReaderBehindAWaitingWriterWaitsForThatWriter() {
        List<LineNode> line = line("read-", "lock-", "read-", "read-");
        assertThat(Admission.judge(line, 0).admitted()).isTrue();
        assertThat(Admission.judge(line, 3).admitted()).isFalse();
        assertThat(Admission.judge(line, 3).watch()).containsExactly(line.get(1));
        assertThat(Admission.holders(line)).containsExactly(line.get(0));
    }

    @Test
    void readersWithNoWriterBeforeThemHoldTogether() {
        List<LineNode> line = line("read-", "read-", "read-", "lock-", "read-");
        assertThat(Admission.holders(line)).containsExactlyElementsOf(line.subList(0, 3));
    }

    @Test
    void aPermitHoldsWithFewerThanItsCountBeforeItAndOtherwiseWatchesTheNearestThatMany() {
        List<LineNode> line = line("permits3-", "permits3-", "permits3-", "permits3-", "permits3-");
        assertThat(Admission.holders(line)).containsExactlyElementsOf(line.subList(0, 3));
        assertThat(Admission.judge(line, 3).watch()).containsExactlyElementsOf(line.subList(0, 3));
        assertThat(Admission.judge(line, 4).watch()).containsExactlyElementsOf(line.subList(1, 4));
    }

    @Test
    void aNodeBehindOneOfAnotherCountMismatchesWhateverElseIsInTheLine() {
        List<LineNode> line = line("permits3-", "lock-", "permits3-");
        assertThat(Admission.judge(line, 1).mismatch()).isEqualTo(Sharing.permits(3));
        // Behind the mismatching writer (about to leave), a permit of the semaphore fails too: the key was awaited
        // as a write lock when it came.
        assertThat(Admission.judge(line, 2).mismatch()).isEqualTo(Sharing.EXCLUSIVE);
        assertThat(Admission.judge(line("read-", "permits2-"), 1).mismatch()).isEqualTo(Sharing.READ);
        assertThat(Admission.judge(line("permits2-", "permits4-"), 1).mismatch()).isEqualTo(Sharing.permits(2));
        assertThat(Admission.judge(line("lock-", "read-"), 1).mismatch()).isNull();
        assertThat(Admission.holders(line)).containsExactly(line.get(0));
    }
}
