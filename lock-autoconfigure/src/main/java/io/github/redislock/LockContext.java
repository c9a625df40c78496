package io.github.redislock;

import java.util.List;
import java.util.Optional;

/**
 * The locks held by the current thread through {@code @DistributedLock} and
 * {@link DistributedLockTemplate#execute}, innermost last. Use it to pass the fencing token to the store the
 * lock protects:
 *
 * <pre>{@code
 * @DistributedLock(key = "sku:#id:lock")
 * public void restock(long id, int quantity) {
 *     long fence = LockContext.current().orElseThrow().fencingToken();
 *     stockTable.update(id, quantity, fence); // ... WHERE last_fence < :fence
 * }
 * }</pre>
 *
 * Thread-bound (virtual threads included): work handed to another thread does not see it. A Kotlin coroutine
 * holding locks (a locked {@code suspend fun} or {@code Flow}, {@code withLock}) sees its own here on whatever
 * thread it resumes, through its coroutine context.
 */
public final class LockContext {

    private LockContext() {
    }

    /** The innermost lock held on this thread, if any. */
    public static Optional<LockHandle> current() {
        return Optional.ofNullable(ThreadLocks.innermost());
    }

    /**
     * Fails unless the current thread runs under a lock that it still holds: ShedLock's
     * {@code LockAssert.assertLocked()}, for a job that must never run unlocked, e.g. because it is called from
     * the same class (which bypasses the proxy) or from a scheduler that was not meant to call it.
     *
     * <pre>{@code
     * @Scheduled(fixedRate = 60_000)
     * @DistributedLock(key = "job:report", onFailure = OnLockFailure.SKIP, holdAtLeast = "50s")
     * public void report() {
     *     LockContext.assertHeld();
     *     ...
     * }
     * }</pre>
     *
     * A unit test that calls such a job directly runs it under an in-process lock with {@code lock-test}'s
     * {@code TestLocks}.
     * @return the innermost lock held on this thread
     * @throws IllegalStateException when no lock guards the current thread's work, or the innermost one is no
     * longer held (closed, lost, or its lease ran out by this JVM's clock)
     */
    public static LockHandle assertHeld() {
        LockHandle handle = current().orElseThrow(() -> new IllegalStateException("Not running under a distributed "
                + "lock: the call did not go through @DistributedLock's proxy (a call from the same object?) or "
                + "DistributedLockTemplate, or the work moved to another thread"));
        if (!handle.isHeld()) {
            throw new IllegalStateException("Running under lock '" + handle.key() + "' (fencing token "
                    + handle.fencingToken() + "), which is no longer held" + (handle.isLost() ? ": it was lost" : ""));
        }
        return handle;
    }

    /** Every lock held on this thread, outermost first. */
    public static List<LockHandle> all() {
        return ThreadLocks.all();
    }
}
