package io.github.redislock.redlock;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The bound on one Redlock node's calls on their way, and whether the node is stalled. A stalled node holds a thread
 * per call until the command timeout (on Jedis), so a node has at most {@link #MAX} calls on their way. Past that a
 * caller waits for one of them to end rather than send more, and a node that ends none for the stall time counts as
 * not answering: further calls to it fail at once instead of taking more threads.
 * <p>
 * Why wait rather than refuse at once: every round is decided by the fastest majority, so the other nodes' calls
 * pile up on the slower ones, several of them in turn on a busy machine. Three nodes can then have every slot
 * taken while all of them still answer, and refusing them would fail rounds whose nodes all answer.
 * <p>
 * One state machine (CallSlotsTest):
 * <pre>
 *   FREE      a slot is free: a call takes it at once ({@link #take}, {@link #await}).
 *   FULL      every slot taken, the node ending calls: a caller on its own thread ({@link #await}) waits for one;
 *             a call made on a reply's thread ({@link #take}: an extension after an earlier round) is refused.
 *   STALLED   a caller waited the stall time with no call ending: calls are refused at once.
 *
 *   FREE    -> FULL      the last slot is taken
 *   FULL    -> FREE      a call ends ({@link #ended})
 *   FULL    -> STALLED   a wait runs out
 *   STALLED -> FREE      a call ends
 * </pre>
 */
final class CallSlots {

    /** Most calls to one node on their way at once. */
    static final int MAX = 32;

    /** How long a node with every slot taken may go without ending a call before it counts as stalled. */
    static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Semaphore free = new Semaphore(MAX);

    private final long stallNanos;

    /** Whether a caller waited the stall time for a slot in vain, since the last call that ended. */
    private volatile boolean stalled;

    private final RejectedExecutionException refusal;

    /**
     * @param node the node's name, for the refusal's message
     * @param stallNanos {@link #STALL_NANOS}, or another time for tests that hold a node full by hand
     */
    CallSlots(String node, long stallNanos) {
        this.stallNanos = stallNanos;
        this.refusal = new Refused(node + " has " + MAX + " calls on their way already");
    }

    /** Takes a slot; false when all are taken (FULL or STALLED), without waiting. */
    boolean take() {
        return this.free.tryAcquire();
    }

    /**
     * Takes a slot, waiting while the node is FULL until one of its calls ends or the stall time since
     * {@code since} ({@link System#nanoTime()}) has passed; false if none came (the node is then STALLED) or it
     * was STALLED already.
     */
    boolean await(long since) throws InterruptedException {
        if (this.free.tryAcquire()) {
            return true;
        }
        if (this.stalled) {
            return false;
        }
        if (this.free.tryAcquire(since + this.stallNanos - System.nanoTime(), TimeUnit.NANOSECONDS)) {
            return true;
        }
        this.stalled = true;
        return false;
    }

    /** Gives back the slot of a call that ended: the node is not stalled. */
    void ended() {
        this.stalled = false;
        this.free.release();
    }

    /** Whether the node is STALLED: calls to it are refused at once until one of its calls ends. */
    boolean isStalled() {
        return this.stalled;
    }

    /** Calls sent and not answered yet. */
    int onTheirWay() {
        return MAX - this.free.availablePermits();
    }

    /**
     * The failure of a call refused: one per node, without a stack trace (it says where the node stands, not where
     * the caller was), as a stalled node may be refused often.
     */
    RejectedExecutionException refusal() {
        return this.refusal;
    }

    /** {@link #refusal()}: without a stack trace, so that one instance can be shared. */
    private static final class Refused extends RejectedExecutionException {

        Refused(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
