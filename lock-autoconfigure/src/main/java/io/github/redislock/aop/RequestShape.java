package io.github.redislock.aop;

import java.time.Duration;

import io.github.redislock.InvalidLockDefinitionException;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.annotation.DistributedLock;

/**
 * What {@code @DistributedLock} adds to each call's request beyond keys, wait and lease: the minimum hold, the mode
 * and the permit count, checked once at start-up.
 * @param holdAtLeast how long the lock stays taken at least after it was acquired; zero: no minimum
 * @param mode WRITE or READ
 * @param permits 1, or a semaphore's count
 */
record RequestShape(Duration holdAtLeast, LockMode mode, int permits) {

    static final RequestShape PLAIN = new RequestShape(Duration.ZERO, LockMode.WRITE, 1);

    /**
     * @param holdAtLeast the annotation's holdAtLeast, parsed
     * @param lease the lease, parsed (fixed when the annotation gives one)
     * @throws InvalidLockDefinitionException naming the method, for a negative holdAtLeast or one longer than a
     * fixed lease, fewer than 1 permit, or permits with a read lock
     */
    static RequestShape of(DistributedLock annotation, Duration holdAtLeast, Duration lease, String origin) {
        if (holdAtLeast.isNegative()) {
            throw new InvalidLockDefinitionException(origin, "holdAtLeast must not be negative: "
                    + annotation.holdAtLeast());
        }
        if (!annotation.leaseTime().isEmpty() && lease.compareTo(holdAtLeast) < 0) {
            throw new InvalidLockDefinitionException(origin, "leaseTime '" + annotation.leaseTime() + "' (" + lease
                    + ") is shorter than holdAtLeast '" + annotation.holdAtLeast() + "' (" + holdAtLeast + "): the "
                    + "fixed lease would expire before the minimum; make leaseTime longer, or leave it empty (renewed)");
        }
        if (annotation.permits() < 1) {
            throw new InvalidLockDefinitionException(origin, "permits must be at least 1 (1 is a lock, more a "
                    + "semaphore of that many holders): " + annotation.permits());
        }
        if (annotation.permits() > 1 && annotation.mode() == LockMode.READ) {
            throw new InvalidLockDefinitionException(origin, "permits = " + annotation.permits() + " with mode = READ: "
                    + "a read lock has no permit count (readers share a key without a limit); use permits with "
                    + "mode = WRITE (the default) for a semaphore, or mode = READ alone");
        }
        return new RequestShape(holdAtLeast, annotation.mode(), annotation.permits());
    }

    /** A read lock or a semaphore. */
    boolean isShared() {
        return this.mode == LockMode.READ || this.permits > 1;
    }

    /** The request with this shape; the plain shape changes nothing. */
    LockRequest apply(LockRequest request) {
        LockRequest shaped = this.holdAtLeast.isZero() ? request : request.holdAtLeast(this.holdAtLeast);
        shaped = (this.mode == LockMode.WRITE) ? shaped : shaped.mode(this.mode);
        return (this.permits == 1) ? shaped : shaped.permits(this.permits);
    }
}
