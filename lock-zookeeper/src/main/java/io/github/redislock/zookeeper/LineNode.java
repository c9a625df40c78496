package io.github.redislock.zookeeper;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.Sharing;

/**
 * One lock node in a key's line, as its name says: how it shares the key and where it stands. The kind is in the
 * name, between Curator's protection prefix and ZooKeeper's sequence number, so that reading the line (one
 * {@code getChildren}) tells every waiter all it needs to decide, with no read of any node's data:
 * <ul>
 * <li>{@code lock-}: a write lock, which is also the exclusive lock (the name it has always had);</li>
 * <li>{@code read-}: a read lock;</li>
 * <li>{@code permits<N>-}: one permit of a semaphore of N (N at least 2).</li>
 * </ul>
 * A child whose name has none of these forms (another client's node, a count that is no int) is no lock node of
 * ours, and every reader of the line leaves it out.
 * @param name the child's name under the key's node
 * @param sharing how the node shares the key
 * @param sequence ZooKeeper's 10-digit sequence number, the order of the line
 */
record LineNode(String name, Sharing sharing, String sequence) {

    /** Curator's protected name ({@code _c_<uuid>-}), the kind, then ZooKeeper's 10-digit sequence number. */
    private static final Pattern NAME = Pattern.compile("_c_[0-9a-f-]{36}-(lock|read|permits([1-9]\\d{0,9}))-(\\d{10})");

    /** The node name a holder of this sharing creates, before Curator's prefix and the sequence number. */
    static String prefix(Sharing sharing) {
        if (sharing.isSemaphore()) {
            return "permits" + sharing.permits() + "-";
        }
        return sharing.isRead() ? "read-" : "lock-";
    }

    /** The node a child's name describes, or {@code null} when it is not a lock node of ours. */
    static @Nullable LineNode parse(String child) {
        Matcher matcher = NAME.matcher(child);
        if (!matcher.matches()) {
            return null;
        }
        Sharing sharing;
        if (matcher.group(2) != null) {
            long permits = Long.parseLong(matcher.group(2));
            if (permits < 2 || permits > Integer.MAX_VALUE) {
                return null;
            }
            sharing = Sharing.permits((int) permits);
        }
        else {
            sharing = matcher.group(1).equals("read") ? Sharing.READ : Sharing.EXCLUSIVE;
        }
        return new LineNode(child, sharing, matcher.group(3));
    }

    /** A write (exclusive) lock's node: nobody beside it. */
    boolean writes() {
        return this.sharing.isExclusive();
    }
}
