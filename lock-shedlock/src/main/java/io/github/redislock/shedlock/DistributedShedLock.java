package io.github.redislock.shedlock;

import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;

/**
 * One ShedLock lock over one of our handles. ShedLock's {@link AbstractSimpleLock} makes it single-use: after
 * {@code unlock} or {@code extend} it refuses both with {@link IllegalStateException}; an extension hands the same
 * handle, extended, to a new lock.
 * <pre>
 * VALID --unlock--&gt; SPENT (handle closed)
 * VALID --extend, handle extended--&gt; SPENT; a new VALID lock over the handle
 * VALID --extend, handle lost--&gt; SPENT (handle closed: releases nothing, the loss told once)
 * </pre>
 */
final class DistributedShedLock extends AbstractSimpleLock {

    private static final Log logger = LogFactory.getLog(DistributedShedLock.class);

    private final LockHandle handle;

    DistributedShedLock(LockHandle handle, LockConfiguration configuration) {
        super(configuration);
        this.handle = handle;
    }

    @Override
    protected void doUnlock() {
        this.handle.close();
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
        if (this.handle.extend(extended.getLockAtMostFor(), extended.getLockAtLeastFor())) {
            return Optional.of(new DistributedShedLock(this.handle, extended));
        }
        try {
            this.handle.close();
        }
        catch (LockException ex) {
            // Lost already: the key expires with its lease, and nothing is ours to release.
            logger.debug("Could not release lock '" + this.handle.key() + "' after a failed extension", ex);
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "DistributedShedLock[" + this.handle + "]";
    }
}
