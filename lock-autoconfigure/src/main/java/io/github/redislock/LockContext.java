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

    /** Every lock held on this thread, outermost first. */
    public static List<LockHandle> all() {
        return ThreadLocks.all();
    }
}
