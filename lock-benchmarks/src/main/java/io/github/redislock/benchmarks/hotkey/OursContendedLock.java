package io.github.redislock.benchmarks.hotkey;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.benchmarks.clients.SpringContexts;

import org.springframework.context.ConfigurableApplicationContext;

/** redis-lock in its own Spring Boot context, through {@code DistributedLockTemplate.execute}. */
final class OursContendedLock implements ContendedLock {

    private final ConfigurableApplicationContext context;

    private final DistributedLockTemplate template;

    OursContendedLock(String redisUrl) {
        this.context = SpringContexts.withLock(redisUrl);
        this.template = this.context.getBean(DistributedLockTemplate.class);
    }

    @Override
    public boolean runLocked(Runnable section) {
        try {
            return this.template.execute(HOT_KEY, WAIT, LEASE, () -> {
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
