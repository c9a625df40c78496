package io.github.redislock.benchmarks.hotkey;

import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockNotAcquiredException;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * redis-lock in its own Spring Boot context, through {@code DistributedLockTemplate.execute}, with a fixed 30 s
 * lease (as the peers are run) or the default renewed one; on the benchmark Redis, or on the benchmark ZooKeeper
 * (where nothing is renewed).
 */
final class OursContendedLock implements ContendedLock {

    private final ConfigurableApplicationContext context;

    private final DistributedLockTemplate template;

    private final @Nullable Duration lease;

    /**
     * @param context the application, on either store
     * @param lease a fixed lease, or {@code null} for the default renewed one
     */
    OursContendedLock(ConfigurableApplicationContext context, @Nullable Duration lease) {
        this.context = context;
        this.template = this.context.getBean(DistributedLockTemplate.class);
        this.lease = lease;
    }

    @Override
    public boolean runLocked(Runnable section) {
        try {
            return this.template.execute(HOT_KEY, WAIT, this.lease, () -> {
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
