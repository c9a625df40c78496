package io.github.redislock.benchmarks.hotkey;

import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockMode;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * redis-lock in its own Spring Boot context on a shared key, through the public API:
 * {@code DistributedLockTemplate.execute(LockRequest)} with {@code permits(4)}, or with {@code mode(READ)} for the
 * reads of the read-mostly runs (a plain request, a write lock, for the writes). A fixed 30 s lease as the peers
 * are run on Redis; on ZooKeeper, where nothing is renewed, the renewed-lease form.
 */
final class OursSharedLock implements ContendedLock {

    private final ConfigurableApplicationContext context;

    private final DistributedLockTemplate template;

    private final SharedShape shape;

    private final LockRequest share;

    private final LockRequest write;

    /**
     * @param context the application, on either store
     * @param lease a fixed lease, or {@code null} for the default renewed one
     */
    OursSharedLock(ConfigurableApplicationContext context, SharedShape shape, @Nullable Duration lease) {
        this.context = context;
        this.template = context.getBean(DistributedLockTemplate.class);
        this.shape = shape;
        this.write = LockRequest.of(shape.key(), WAIT, lease);
        this.share = (shape == SharedShape.SEMAPHORE) ? this.write.permits(SharedShape.PERMITS)
                : this.write.mode(LockMode.READ);
    }

    @Override
    public boolean runLocked(Runnable section) {
        try {
            return this.template.execute(this.shape.nextIsWrite() ? this.write : this.share, () -> {
                section.run();
                return Boolean.TRUE;
            });
        }
        catch (LockNotAcquiredException ex) {
            return false;
        }
    }

    @Override
    public void close() {
        this.context.close();
    }
}
