package io.github.redislock.zookeeper;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.Sharing;

/**
 * The rules of a key's line (its lock nodes in sequence order, {@link LineNode}): whether a node holds the key,
 * judged from the nodes before it alone, and if not, which of them its waiter watches. Nodes only ever join at the
 * end of a line and leave it, so a node admitted stays admitted until it leaves, and nodes are admitted in
 * sequence order (so in the order of their creation zxids, their fencing tokens).
 * <ul>
 * <li><b>Another permit count before it</b> (a semaphore's permit before a lock, a read or write lock before a
 * permit, or a semaphore of another size): the node mismatches at once, whatever else is in the line. Only the
 * later arrival checks, so of two nodes of different counts the later one always fails and never holds beside the
 * earlier: it reads the line after its own node was made, when the earlier one is there unless already gone.</li>
 * <li><b>A write (exclusive) lock</b> holds when it is first; it watches the node just before it.</li>
 * <li><b>A read lock</b> holds when no write lock is before it (readers before it hold or wait beside it; a reader
 * behind a waiting writer waits for that writer, so a stream of readers cannot starve a writer); it watches the
 * nearest write lock before it.</li>
 * <li><b>A permit of a semaphore of N</b> holds when fewer than N nodes are before it; it watches the N nodes just
 * before it. Permits are released in any order: a waiter is admitted by the departure of any node before it once
 * N are left, and the N nearest are the ones whose departure can bring it within N (a departure further ahead leaves
 * them as its nearest N, and the next of them to go wakes it). Each departure wakes at most the N waiters behind it,
 * whatever the length of the line.</li>
 * </ul>
 * Pure functions of the line read; no state.
 */
final class Admission {

    private Admission() {
    }

    /**
     * What a node of the line may do now.
     * @param admitted whether it holds the key
     * @param mismatch how the key is used by an earlier node with another permit count ({@code null}: none)
     * @param watch the nodes before it whose departure may admit it (empty when admitted or mismatched)
     */
    record Verdict(boolean admitted, @Nullable Sharing mismatch, List<LineNode> watch) {

        private static final Verdict ADMITTED = new Verdict(true, null, List.of());

        static Verdict waitFor(List<LineNode> nodes) {
            return new Verdict(false, null, List.copyOf(nodes));
        }
    }

    /** The verdict on the node at {@code index} of the line (oldest first). */
    static Verdict judge(List<LineNode> line, int index) {
        Sharing mine = line.get(index).sharing();
        for (int i = 0; i < index; i++) {
            Sharing earlier = line.get(i).sharing();
            if (!earlier.sharesKeyWith(mine)) {
                return new Verdict(false, earlier, List.of());
            }
        }
        if (mine.isSemaphore()) {
            int permits = mine.permits();
            return (index < permits) ? Verdict.ADMITTED : Verdict.waitFor(line.subList(index - permits, index));
        }
        if (mine.isRead()) {
            for (int i = index - 1; i >= 0; i--) {
                if (line.get(i).writes()) {
                    return Verdict.waitFor(List.of(line.get(i)));
                }
            }
            return Verdict.ADMITTED;
        }
        return (index == 0) ? Verdict.ADMITTED : Verdict.waitFor(List.of(line.get(index - 1)));
    }

    /**
     * The nodes that hold the key now: the line's admitted nodes, which are always its first ones (once a node is
     * not admitted, no node behind it is: it waits for what they wait for too, or mismatches them).
     */
    static List<LineNode> holders(List<LineNode> line) {
        List<LineNode> holders = new ArrayList<>();
        for (int i = 0; i < line.size() && judge(line, i).admitted(); i++) {
            holders.add(line.get(i));
        }
        return holders;
    }
}
