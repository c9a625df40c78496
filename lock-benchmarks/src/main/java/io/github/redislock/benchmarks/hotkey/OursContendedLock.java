package io.github.redislock.benchmarks.hotkey;

import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.benchmarks.clients.SpringContexts;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * redis-lock in its own Spring Boot context, through {@code DistributedLockTemplate.execute}, with a fixed 30 s
 * lease (as the peers are run) or the default renewed one.
 */
final class OursContendedLock implements ContendedLock {

    private final ConfigurableApplicationContext context;

    private final DistributedLockTemplate template;

    private final @Nullable Duration lease;

    /** @param lease a fixed lease, or {@code null} for the default renewed one */
    OursContendedLock(String redisUrl, @Nullable Duration lease) {
        this.context = SpringContexts.withLock(redisUrl);
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
