package io.github.redislock.torture;

import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.annotation.DistributedLock;

/**
 * The methods the shared workloads lock by annotation, as a user's application would: a permit of the semaphore
 * ({@code permits}), a read lock ({@code mode = READ}); a write lock is the exclusive workload's plain
 * {@code @DistributedLock} ({@link WorkerApplication.AnnotatedSections}). {@link Nested} takes one and then,
 * through the other bean's proxy, the same key again: the inner lock must be re-entered with the outer one's fencing
 * token, a nested read lock inside a write lock too (a downgrade).
 */
final class SharedSections {

    private SharedSections() {
    }

    /** A read lock or a permit, renewed while the method runs. */
    public static class Annotated {

        @DistributedLock(key = "#key", permits = Workload.PERMITS)
        public void permit(String key, WorkerApplication.Section section) {
            section.run(LockContext.current().orElseThrow());
        }

        @DistributedLock(key = "#key", mode = LockMode.READ)
        public void read(String key, WorkerApplication.Section section) {
            section.run(LockContext.current().orElseThrow());
        }
    }

    /** Takes a share, then the same key again through {@link Annotated}: the inner one must re-enter the outer. */
    public static class Nested {

        private final Annotated inner;

        Nested(Annotated inner) {
            this.inner = inner;
        }

        @DistributedLock(key = "#key", permits = Workload.PERMITS)
        public void permit(String key, WorkerApplication.Section section) {
            LockHandle outer = LockContext.current().orElseThrow();
            this.inner.permit(key, reentered(key, outer, section));
        }

        @DistributedLock(key = "#key", mode = LockMode.READ)
        public void read(String key, WorkerApplication.Section section) {
            LockHandle outer = LockContext.current().orElseThrow();
            this.inner.read(key, reentered(key, outer, section));
        }

        /** A write lock with a read lock of the same key inside it: a downgrade enters what the thread holds. */
        @DistributedLock(key = "#key")
        public void write(String key, WorkerApplication.Section section) {
            LockHandle outer = LockContext.current().orElseThrow();
            this.inner.read(key, reentered(key, outer, section));
        }

        private static WorkerApplication.Section reentered(String key, LockHandle outer,
                WorkerApplication.Section section) {
            return (handle) -> {
                if (handle.fencingToken() != outer.fencingToken()) {
                    throw new IllegalStateException("Re-entered " + key + " with another fencing token: "
                            + handle.fencingToken() + " inside " + outer.fencingToken());
                }
                section.run(handle);
            };
        }
    }
}
