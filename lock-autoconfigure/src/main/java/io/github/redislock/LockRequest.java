package io.github.redislock;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * What to lock and how: one or more keys, how long to wait for them, and a fixed lease or a renewed one.
 * Immutable and checked when built, so that every way into the lock (the annotation, the template, a
 * {@link LockProvider}) sees the same rules:
 * <ul>
 * <li>keys: at least one, none {@code null}, empty, invalid text (a lone surrogate) or with a control character
 * (it would forge log lines); duplicates collapse, and several keys are taken in
 * lexicographic order, so that callers naming the same keys in different orders cannot deadlock;</li>
 * <li>wait time: zero (one attempt) or more; longer than about 292 years counts as "as long as it takes";</li>
 * <li>lease time: {@code null} for a lease renewed while the lock is held, otherwise at least 1 ms and at most
 * {@link #MAX_LEASE} (30 days), fixed;</li>
 * <li>reentrancy: by default the thread that holds a lock gets in again at once when it asks for it again
 * (the lock is its own until it closes its last handle). A request for work that goes on after the call
 * returns ({@link #nonReentrant()}: asynchronous or reactive work, whose thread moves on to other calls)
 * never enters a lock its thread holds and is never entered by a later request on that thread.</li>
 * <li>hold at least ({@link #holdAtLeast(Duration)}, ShedLock's {@code lockAtLeastFor}): none by default; when the
 * work ends sooner than this after the lock was acquired, the key stays taken, by nobody who can enter, until
 * this long after the acquisition and then expires. Zero or more; a fixed lease must be at least as long.</li>
 * </ul>
 * The keys are lock names: the provider adds its key prefix ({@code redis-lock.key-prefix}).
 */
public final class LockRequest {

    /**
     * The longest lease a lock may have. A release hands a lock on only for a lease within 1 ms and this (the
     * lease is read back from the store, where another client may have written it).
     */
    public static final Duration MAX_LEASE = Duration.ofDays(30);

    /** Constants rather than a {@code Duration} made on every request's check. */
    private static final Duration MIN_LEASE = Duration.ofMillis(1);

    private static final Duration LONGEST_NANOS = Duration.ofNanos(Long.MAX_VALUE);

    private final List<String> keys;

    private final Duration waitTime;

    private final @Nullable Duration leaseTime;

    private final long waitNanos;

    private final boolean reentrant;

    private final Duration holdAtLeast;

    private final LockMode mode;

    private final int permits;

    private LockRequest(List<String> keys, Duration waitTime, @Nullable Duration leaseTime, boolean reentrant,
            Duration holdAtLeast, LockMode mode, int permits) {
        this.keys = keys;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.waitNanos = saturatedNanos(waitTime);
        this.reentrant = reentrant;
        this.holdAtLeast = holdAtLeast;
        this.mode = mode;
        this.permits = permits;
    }

    /**
     * One key.
     * @throws LockException if the key is {@code null} or empty
     * @throws IllegalArgumentException if the wait time is {@code null} or negative, or the lease shorter than 1 ms
     * or longer than {@link #MAX_LEASE}
     */
    public static LockRequest of(String key, Duration waitTime, @Nullable Duration leaseTime) {
        checkKey(key);
        return new LockRequest(List.of(key), checkWait(waitTime), checkLease(leaseTime), true, Duration.ZERO,
                LockMode.WRITE, 1);
    }

    /**
     * Several keys, all taken before the work runs and released together.
     * @throws LockException if there are no keys, or one is {@code null} or empty
     * @throws IllegalArgumentException if the wait time is {@code null} or negative, or the lease shorter than 1 ms
     * or longer than {@link #MAX_LEASE}
     */
    public static LockRequest of(Collection<String> keys, Duration waitTime, @Nullable Duration leaseTime) {
        if (keys == null || keys.isEmpty()) {
            throw new LockException("No lock key given");
        }
        if (keys.size() == 1) {
            // Nothing to order or collapse: the annotation's one key arrives in an immutable list, kept as it is.
            String key = (keys instanceof List<String> list) ? list.get(0) : keys.iterator().next();
            checkKey(key);
            List<String> one = List.copyOf(keys);
            if (one.size() == 1 && one.get(0) == key) {
                return new LockRequest(one, checkWait(waitTime), checkLease(leaseTime), true, Duration.ZERO,
                        LockMode.WRITE, 1);
            }
            // Changed by another thread meanwhile: the general path checks what the copy holds.
        }
        TreeSet<String> ordered = new TreeSet<>();
        for (String key : keys) {
            checkKey(key);
            ordered.add(key);
        }
        return new LockRequest(List.copyOf(ordered), checkWait(waitTime), checkLease(leaseTime), true, Duration.ZERO,
                LockMode.WRITE, 1);
    }

    private static void checkKey(@Nullable String key) {
        if (key == null || key.isEmpty()) {
            throw new LockException("Lock key is null or empty");
        }
        if (hasLoneSurrogate(key)) {
            // Its UTF-8 bytes, which the store sees, would not be the key compared in Java: two keys could share
            // one lock, or a key's hand-off never find its waiters.
            throw new LockException("Lock key '" + key + "' is not valid text: it has a lone surrogate (half of a "
                    + "character such as an emoji, cut apart?)");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                // Not echoed: a line break in a key would forge log lines wherever the key is logged.
                throw new LockException("Lock key has a control character (" + String.format("U+%04X", (int) c)
                        + " at index " + i + "); the annotation escapes them in request values, a key given "
                        + "directly must not have any");
            }
        }
    }

    /** A high surrogate not followed by a low one, or a low one not preceded by a high one; allocates nothing. */
    private static boolean hasLoneSurrogate(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            }
            else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    private static Duration checkWait(@Nullable Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must be zero or more: " + waitTime);
        }
        return waitTime;
    }

    private static @Nullable Duration checkLease(@Nullable Duration leaseTime) {
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.compareTo(MIN_LEASE) < 0)) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms: " + leaseTime);
        }
        if (leaseTime != null && leaseTime.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("leaseTime must be at most " + MAX_LEASE.toDays() + " days: " + leaseTime);
        }
        return leaseTime;
    }

    /** {@link Duration#toNanos()} without overflow: beyond {@code Long.MAX_VALUE} ns, as long as it takes. */
    private static long saturatedNanos(Duration duration) {
        return (duration.compareTo(LONGEST_NANOS) >= 0) ? Long.MAX_VALUE : duration.toNanos();
    }

    /** The lock names, distinct, in the order they are taken. */
    public List<String> keys() {
        return this.keys;
    }

    public Duration waitTime() {
        return this.waitTime;
    }

    /** The wait time in nanoseconds, {@code Long.MAX_VALUE} for "as long as it takes". */
    public long waitNanos() {
        return this.waitNanos;
    }

    /** The fixed lease, or {@code null} when the lease is renewed while the lock is held. */
    public @Nullable Duration leaseTime() {
        return this.leaseTime;
    }

    /** Whether the lease is renewed while the lock is held (no fixed lease was given). */
    public boolean isRenewed() {
        return this.leaseTime == null;
    }

    /**
     * The same request for work that goes on after the call returns, on other threads: the lock is not tied
     * to the calling thread, so that thread neither enters a lock it holds nor lets a later request of its own
     * in (it would not wait for the work still running).
     */
    public LockRequest nonReentrant() {
        return this.reentrant ? new LockRequest(this.keys, this.waitTime, this.leaseTime, false, this.holdAtLeast,
                this.mode, this.permits) : this;
    }

    /**
     * The same request, whose keys stay taken at least this long after they were acquired (ShedLock's
     * {@code lockAtLeastFor}, for scheduled jobs on several instances): when the work ends sooner, the keys are not
     * released but kept in the store, owned by nobody who can enter (not this thread, not another one here, not a
     * waiting application), until this long after the acquisition, and then expire; no waiting application is
     * handed them before. Work that runs longer releases as usual. It applies whether the work returns or throws.
     * {@link Duration#ZERO} (the default) keeps nothing.
     * @throws IllegalArgumentException if it is {@code null} or negative, or longer than the fixed lease (the key
     * would expire before the minimum)
     */
    public LockRequest holdAtLeast(Duration holdAtLeast) {
        if (holdAtLeast == null || holdAtLeast.isNegative()) {
            throw new IllegalArgumentException("holdAtLeast must be zero or more: " + holdAtLeast);
        }
        if (this.leaseTime != null && this.leaseTime.compareTo(holdAtLeast) < 0) {
            throw new IllegalArgumentException("leaseTime " + this.leaseTime + " is shorter than holdAtLeast "
                    + holdAtLeast + ": the fixed lease would expire before the minimum; make the lease longer, or "
                    + "leave it renewed");
        }
        return new LockRequest(this.keys, this.waitTime, this.leaseTime, this.reentrant, holdAtLeast, this.mode,
                this.permits);
    }

    /** How long the keys stay taken at least after they were acquired; {@link Duration#ZERO}: no minimum. */
    public Duration holdAtLeast() {
        return this.holdAtLeast;
    }

    /** {@link #holdAtLeast()} in nanoseconds, saturated. */
    public long holdAtLeastNanos() {
        return saturatedNanos(this.holdAtLeast);
    }

    /**
     * The same request in this mode: {@link LockMode#WRITE} (the default) is alone on its keys, {@link LockMode#READ}
     * shares them with other readers (see {@link LockMode}).
     * @throws IllegalArgumentException if it is {@code null}, or READ for a request of more than one permit (a
     * semaphore has no modes)
     */
    public LockRequest mode(LockMode mode) {
        if (mode == null) {
            throw new IllegalArgumentException("mode must not be null");
        }
        if (mode == LockMode.READ && this.permits > 1) {
            throw new IllegalArgumentException("A read lock has no permit count, but this request asks for "
                    + this.permits + " permits: readers share a key without a limit; use permits with mode WRITE for "
                    + "a semaphore");
        }
        return new LockRequest(this.keys, this.waitTime, this.leaseTime, this.reentrant, this.holdAtLeast, mode,
                this.permits);
    }

    /** How the keys are shared: {@link LockMode#WRITE} (alone) unless {@link #mode(LockMode)} said otherwise. */
    public LockMode mode() {
        return this.mode;
    }

    /**
     * The same request as one permit of a semaphore of {@code permits} on each key: at most that many holders at
     * once across every application, each with a lease of its own (renewed while held, released when the work
     * ends, back within one lease if its holder crashes). 1 (the default) is a plain lock. Every user of one key
     * must ask for the same count: a request that finds the key in use with another count fails with a
     * {@link LockException} naming both.
     * @throws IllegalArgumentException if it is below 1, or above 1 for a {@link LockMode#READ} request
     */
    public LockRequest permits(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1: " + permits);
        }
        if (permits > 1 && this.mode == LockMode.READ) {
            throw new IllegalArgumentException("A read lock has no permit count (permits " + permits
                    + "): readers share a key without a limit; use permits with mode WRITE for a semaphore");
        }
        return new LockRequest(this.keys, this.waitTime, this.leaseTime, this.reentrant, this.holdAtLeast, this.mode,
                permits);
    }

    /** How many holders a key admits at once: 1 (a lock) unless {@link #permits(int)} said more. */
    public int permits() {
        return this.permits;
    }

    /** Whether the calling thread may enter a lock it already holds, and be entered again by its next request. */
    public boolean isReentrant() {
        return this.reentrant;
    }

    @Override
    public String toString() {
        return "LockRequest" + this.keys + " wait " + this.waitTime + ", lease "
                + ((this.leaseTime != null) ? this.leaseTime : "renewed")
                + (this.holdAtLeast.isZero() ? "" : ", held at least " + this.holdAtLeast)
                + (this.reentrant ? "" : ", not reentrant")
                + ((this.mode == LockMode.READ) ? ", read" : "")
                + ((this.permits > 1) ? ", " + this.permits + " permits" : "");
    }
}
