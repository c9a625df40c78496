package io.github.redislock.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.Sharing;

/**
 * One key of an {@link InMemoryLockStore}: its holders, the last fencing token it handed out, and the line of takes
 * waiting for it. Not thread-safe: every method is called with the store's lock held, which guards every slot.
 * <p>
 * A key has holders, each with a lease of its own: one writer; or readers; or up to N holders of a semaphore of N.
 * A holder released before its holdAtLeast stays as a kept holder (owned by nobody, no token) until its keep ends.
 * Per holder (t: its token, f: its fencing token):
 * <pre>
 * state        event                                                   next state
 * (none)       a take is admitted (see below)                          HELD(t, f = last + 1): lease from now
 * HELD(t, f)   an extension by t before the lease ends                 HELD(t, f): the lease counts from now
 * HELD(t, f)   a release by t, no keep                                 (none)
 * HELD(t, f)   a release by t, keep N ms                               KEPT(f): until N ms from now
 * HELD, KEPT   the lease or keep ends (now reaches it)                 (none)
 * HELD, KEPT   the key dropped (deleted behind the holders' backs)     (none), every holder
 * any          a release, extension or check by a token that does      unchanged: it answers "not held"
 *              not hold the key (or whose lease has ended)
 * </pre>
 * Admission is fair, in arrival order: the line is walked from its head, admitting each waiter while the key (with
 * the holders admitted before it in this walk) would take it, and stopping at the first that it would not; a take
 * is admitted when the walk reaches it (a take not yet in line stands at the end). So a writer waits for every
 * holder, readers behind a waiting writer wait behind it, and a semaphore's free permits go to the first waiters.
 * Whatever may admit someone (a release, keep, extension, drop, a take leaving the line) wakes every waiter to walk
 * again; a blocked waiter also wakes by itself when the earliest lease or keep of the key ends.
 * <p>
 * A key is in use as one kind while it has holders or waiters: its permit count is theirs, and a take with another
 * count fails at once ({@link Sharing#mismatch}).
 */
final class KeySlot {

    /** Where a key is, as the store's assertions see it. */
    enum State {

        /** Nobody holds it; the next admitted take gets it with the next fencing token. */
        FREE,

        /** At least one holder has it until its lease ends. */
        HELD,

        /** Only kept holders (owned by nobody after their work ended, until holdAtLeast has passed). */
        KEPT
    }

    final String key;

    /** The takes waiting for the key, in arrival order. */
    final List<Waiter> line = new ArrayList<>();

    private final List<Holder> holders = new ArrayList<>();

    /** The last fencing token handed out for the key (0: none yet); it never goes down. */
    private long lastFence;

    KeySlot(String key) {
        this.key = key;
    }

    /** The key's state at {@code nowNanos}, after leases and keeps that ran out are dropped. */
    State state(long nowNanos) {
        prune(nowNanos);
        if (this.holders.isEmpty()) {
            return State.FREE;
        }
        for (Holder holder : this.holders) {
            if (holder.token != null) {
                return State.HELD;
            }
        }
        return State.KEPT;
    }

    /** How the key is in use now (by a holder, else by the first waiter); {@code null}: not in use. */
    @Nullable Sharing inUseAs(long nowNanos) {
        prune(nowNanos);
        if (!this.holders.isEmpty()) {
            return this.holders.get(0).sharing;
        }
        return this.line.isEmpty() ? null : this.line.get(0).sharing;
    }

    /** Whether a take that is {@code me} in line (or, {@code null}, about to join its end) is admitted now. */
    boolean admits(@Nullable Waiter me, Sharing sharing, long nowNanos) {
        prune(nowNanos);
        List<Sharing> admitted = new ArrayList<>(this.holders.size() + this.line.size());
        for (Holder holder : this.holders) {
            admitted.add(holder.sharing);
        }
        for (Waiter waiter : this.line) {
            if (!fits(waiter.sharing, admitted)) {
                return false;
            }
            if (waiter == me) {
                return true;
            }
            admitted.add(waiter.sharing);
        }
        return me == null && fits(sharing, admitted);
    }

    private static boolean fits(Sharing sharing, List<Sharing> holders) {
        if (holders.isEmpty()) {
            return true;
        }
        if (sharing.isSemaphore()) {
            return holders.size() < sharing.permits();
        }
        if (!sharing.isRead()) {
            return false;
        }
        for (Sharing holder : holders) {
            if (!holder.isRead()) {
                return false;
            }
        }
        return true;
    }

    /** A new holder for this token; its lease counts from {@code nowNanos}. Returns its fencing token. */
    long take(String token, Sharing sharing, long nowNanos, long leaseNanos) {
        long fence = ++this.lastFence;
        this.holders.add(new Holder(token, sharing, fence, nowNanos, nowNanos + leaseNanos));
        return fence;
    }

    /** The holder with exactly this value (token and fencing token) at {@code nowNanos}, or {@code null}. */
    @Nullable Holder holder(String token, long fence, long nowNanos) {
        prune(nowNanos);
        for (Holder holder : this.holders) {
            if (holder.fence == fence && token.equals(holder.token)) {
                return holder;
            }
        }
        return null;
    }

    /** The holder's lease now ends {@code leaseNanos} after {@code nowNanos}. */
    void extend(Holder holder, long nowNanos, long leaseNanos) {
        holder.untilNanos = nowNanos + leaseNanos;
    }

    /** The holder goes; the key is free of it. */
    void free(Holder holder) {
        this.holders.remove(holder);
    }

    /** The holder is kept, owned by nobody, until {@code keepNanos} after {@code nowNanos}. */
    void keep(Holder holder, long nowNanos, long keepNanos) {
        holder.token = null;
        holder.untilNanos = nowNanos + keepNanos;
    }

    /** Every holder goes at once (a key deleted behind their backs). */
    void drop() {
        this.holders.clear();
    }

    /** The holder with this token goes at once (deleted behind its back); the others stay. */
    void drop(String token) {
        this.holders.removeIf((holder) -> token.equals(holder.token));
    }

    /** A take leaves the line; the ones behind it may be admitted now. */
    void leave(Waiter waiter) {
        this.line.remove(waiter);
        signalAll();
    }

    /** Wakes every waiting take to walk the line again. */
    void signalAll() {
        for (Waiter waiter : this.line) {
            waiter.wake.signal();
        }
    }

    /** When the earliest lease or keep of the key ends ({@link System#nanoTime()}); only with holders. */
    long earliestEndNanos() {
        long earliest = this.holders.get(0).untilNanos;
        for (Holder holder : this.holders) {
            if (holder.untilNanos - earliest < 0) {
                earliest = holder.untilNanos;
            }
        }
        return earliest;
    }

    private void prune(long nowNanos) {
        for (Iterator<Holder> it = this.holders.iterator(); it.hasNext();) {
            if (nowNanos - it.next().untilNanos >= 0) {
                it.remove();
            }
        }
    }

    /**
     * What the store's {@code inspect} says of the key at {@code nowNanos}: the holder with the highest fencing
     * token first, every holder in {@code holders}.
     * @param names names the instance behind a holder's token
     */
    LockInspection inspect(long nowNanos, Function<@Nullable String, LockInspection.Holder> names) {
        State current = state(nowNanos);
        int waiting = this.line.size();
        if (current == State.FREE) {
            return LockInspection.free(this.key, waiting);
        }
        List<LockInspection.Holding> holdings = new ArrayList<>(this.holders.size());
        Holder last = this.holders.get(0);
        for (Holder holder : this.holders) {
            last = (holder.fence > last.fence) ? holder : last;
            if (holder.token != null) {
                holdings.add(new LockInspection.Holding(names.apply(holder.token), holder.fence,
                        Duration.ofNanos(holder.untilNanos - nowNanos)));
            }
        }
        Instant since = Instant.now().minusNanos(nowNanos - last.takenAtNanos);
        Duration left = Duration.ofNanos(last.untilNanos - nowNanos);
        LockInspection.State state = (current == State.KEPT) ? LockInspection.State.KEPT : LockInspection.State.HELD;
        LockInspection.Holder named = (last.token != null) ? names.apply(last.token) : null;
        return new LockInspection(this.key, state, named, last.fence, since, left, waiting, last.sharing, holdings);
    }

    /** One take waiting in line: how it would hold the key, and how it is woken. */
    record Waiter(Sharing sharing, java.util.concurrent.locks.Condition wake) {
    }

    /** One holder of the key; its token is {@code null} once kept. */
    static final class Holder {

        @Nullable String token;

        final Sharing sharing;

        final long fence;

        final long takenAtNanos;

        long untilNanos;

        Holder(String token, Sharing sharing, long fence, long takenAtNanos, long untilNanos) {
            this.token = token;
            this.sharing = sharing;
            this.fence = fence;
            this.takenAtNanos = takenAtNanos;
            this.untilNanos = untilNanos;
        }
    }
}
