package io.github.redislock.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockInspection;

/**
 * One key of an {@link InMemoryLockStore}: its state ({@link State}), the last fencing token it handed out, and
 * the line of takes waiting for it. Not thread-safe: every method is called with the store's lock held, which
 * guards every slot. The store moves a key through these states (t: the holder's token, f: the last fencing
 * token):
 * <pre>
 * state          event                                                  next state
 * FREE(f)        a take finds nobody waiting before it                  HELD(t, f+1): the lease counts from now
 * FREE(f)        a take finds others waiting before it                  FREE(f): it joins the end of the line
 * HELD(t, f)     a take of another token                                HELD(t, f): it joins the line, or gives up
 *                                                                       at its deadline (null)
 * HELD(t, f)     an extension by t before the lease ends                HELD(t, f): the lease counts from now;
 *                                                                       the first in line is woken to wait for
 *                                                                       the new end
 * HELD(t, f)     a release by t, no keep                                FREE(f): the first in line is woken
 * HELD(t, f)     a release by t, keep N ms                              KEPT(f): until N ms from now; the first
 *                                                                       in line is woken to wait for its end
 * HELD(t, f)     the lease ends (now reaches it)                        FREE(f)
 * KEPT(f)        the keep ends                                          FREE(f)
 * HELD, KEPT     dropped (deleted behind the holder's back)             FREE(f): the first in line is woken
 * any            a release, extension or check by a token that does    unchanged: it answers "not held"
 *                not hold the key (or whose lease has ended)
 * </pre>
 */
final class KeySlot {

    /** Where a key is. */
    enum State {

        /** Nobody holds it; the next take gets it with the next fencing token. */
        FREE,

        /** A holder has it until its lease ends ({@link #untilNanos}). */
        HELD,

        /** Owned by nobody after its holder's work ended, until holdAtLeast has passed ({@link #untilNanos}). */
        KEPT
    }

    final String key;

    /** The takes waiting for the key, first come first served: only the first may take it. */
    final ArrayDeque<Condition> line = new ArrayDeque<>();

    private State state = State.FREE;

    /** The last fencing token handed out for the key (0: none yet); it never goes down. */
    private long lastFence;

    /** HELD: the holder's value, compared with what a release, extension or check brings. */
    private @Nullable String holderToken;

    /** HELD, KEPT: the fencing token of the acquisition that holds (or held) the key. */
    private long fence;

    /** HELD, KEPT: when the acquisition took the key ({@link System#nanoTime()}). */
    private long takenAtNanos;

    /** HELD: when the lease ends; KEPT: when the keep ends ({@link System#nanoTime()}). */
    private long untilNanos;

    KeySlot(String key) {
        this.key = key;
    }

    /**
     * The state at {@code nowNanos}: a lease or keep that has run out moves the key to FREE first (nobody needs to
     * be told, since the first waiter waits with a timeout that ends when it runs out).
     */
    State state(long nowNanos) {
        if (this.state != State.FREE && nowNanos - this.untilNanos >= 0) {
            this.state = State.FREE;
            this.holderToken = null;
        }
        return this.state;
    }

    /** FREE to HELD for this token; the lease counts from {@code nowNanos}. Returns the new fencing token. */
    long take(String token, long nowNanos, long leaseNanos) {
        this.state = State.HELD;
        this.holderToken = token;
        this.fence = ++this.lastFence;
        this.takenAtNanos = nowNanos;
        this.untilNanos = nowNanos + leaseNanos;
        return this.fence;
    }

    /** Whether the key is HELD at {@code nowNanos} by exactly this value (token and fencing token). */
    boolean heldBy(String token, long fence, long nowNanos) {
        return state(nowNanos) == State.HELD && token.equals(this.holderToken) && this.fence == fence;
    }

    /** HELD: the lease now ends {@code leaseNanos} after {@code nowNanos}. */
    void extend(long nowNanos, long leaseNanos) {
        this.untilNanos = nowNanos + leaseNanos;
    }

    /** HELD to FREE. */
    void free() {
        this.state = State.FREE;
        this.holderToken = null;
    }

    /** HELD to KEPT, owned by nobody, until {@code keepNanos} after {@code nowNanos}. */
    void keep(long nowNanos, long keepNanos) {
        this.state = State.KEPT;
        this.holderToken = null;
        this.untilNanos = nowNanos + keepNanos;
    }

    /** A take leaves the line; if it was first, the next one is first now and must look at the key. */
    void leave(Condition waiter) {
        boolean wasFirst = this.line.peekFirst() == waiter;
        this.line.remove(waiter);
        if (wasFirst) {
            signalFirst();
        }
    }

    /** Wakes the first waiting take, if any, to look at the key again. */
    void signalFirst() {
        Condition first = this.line.peekFirst();
        if (first != null) {
            first.signal();
        }
    }

    /** HELD, KEPT: when the lease or keep ends ({@link System#nanoTime()}). */
    long untilNanos() {
        return this.untilNanos;
    }

    /**
     * What the store's {@code inspect} says of the key at {@code nowNanos}.
     * @param holders names the instance behind a holder's token
     */
    LockInspection inspect(long nowNanos, Function<@Nullable String, LockInspection.Holder> holders) {
        State current = state(nowNanos);
        int waiting = this.line.size();
        if (current == State.FREE) {
            return LockInspection.free(this.key, waiting);
        }
        Instant since = Instant.now().minusNanos(nowNanos - this.takenAtNanos);
        Duration left = Duration.ofNanos(this.untilNanos - nowNanos);
        if (current == State.KEPT) {
            return new LockInspection(this.key, LockInspection.State.KEPT, null, this.fence, since, left, waiting);
        }
        return new LockInspection(this.key, LockInspection.State.HELD, holders.apply(this.holderToken), this.fence,
                since, left, waiting);
    }
}
