package io.github.redislock.benchmarks.hotkey;

import java.time.Duration;
import java.util.function.Supplier;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockMode;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * redis-lock in its own Spring Boot context, through {@code DistributedLockTemplate.execute(LockRequest)}, with a
 * fixed 30 s lease (as the peers are run) or the default renewed one; on the benchmark Redis, or on the benchmark
 * ZooKeeper (where nothing is renewed). The hot key as a plain lock, or a shared key ({@link #shared}).
 */
final class OursContendedLock implements ContendedLock {

    private final ConfigurableApplicationContext context;

    private final DistributedLockTemplate template;

    /** The request of the next call. */
    private final Supplier<LockRequest> request;

    /**
     * The hot key as a plain lock.
     * @param context the application, on either store
     * @param lease a fixed lease, or {@code null} for the default renewed one
     */
    OursContendedLock(ConfigurableApplicationContext context, @Nullable Duration lease) {
        this(context, constant(LockRequest.of(HOT_KEY, WAIT, lease)));
    }

    private OursContendedLock(ConfigurableApplicationContext context, Supplier<LockRequest> request) {
        this.context = context;
        this.template = this.context.getBean(DistributedLockTemplate.class);
        this.request = request;
    }

    /**
     * The shape's key as a semaphore ({@code permits(4)}), or read-mostly: {@code mode(READ)}, a plain request (a
     * write lock) one call in ten.
     */
    static OursContendedLock shared(ConfigurableApplicationContext context, SharedShape shape,
            @Nullable Duration lease) {
        LockRequest write = LockRequest.of(shape.key(), WAIT, lease);
        if (shape == SharedShape.SEMAPHORE) {
            return new OursContendedLock(context, constant(write.permits(SharedShape.PERMITS)));
        }
        LockRequest read = write.mode(LockMode.READ);
        return new OursContendedLock(context, () -> shape.nextIsWrite() ? write : read);
    }

    private static Supplier<LockRequest> constant(LockRequest request) {
        return () -> request;
    }

    @Override
    public boolean runLocked(Runnable section) {
        try {
            return this.template.execute(this.request.get(), () -> {
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
