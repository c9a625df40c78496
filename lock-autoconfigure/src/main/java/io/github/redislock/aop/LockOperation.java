package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockRequest;
import io.github.redislock.annotation.OnLockFailure;

/**
 * Everything {@code @DistributedLock} says about one method, parsed and checked once at start-up: key
 * templates, durations (defaults and placeholders already applied), failure handling.
 */
final class LockOperation {

    private final String origin;

    private final KeyTemplate[] keys;

    private final Duration waitTime;

    /** The fixed lease, or {@code null}: renewed. */
    private final @Nullable Duration leaseTime;

    /** holdAtLeast, mode and permits. */
    private final RequestShape shape;

    private final OnLockFailure onFailure;

    private final LockFallback fallback;

    private final LockedReturn returns;

    LockOperation(String origin, List<KeyTemplate> keys, Duration waitTime, @Nullable Duration leaseTime,
            RequestShape shape, OnLockFailure onFailure, @Nullable LockFallback fallback, LockedReturn returns) {
        this.origin = origin;
        this.keys = keys.toArray(new KeyTemplate[0]);
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.shape = shape;
        this.onFailure = onFailure;
        this.fallback = fallback;
        this.returns = returns;
    }

    /**
     * The request for one call: the resolved keys (validated, and ordered by the request), wait, lease, minimum
     * hold, mode and permits.
     */
    LockRequest request(KeyEvaluation evaluation) {
        List<String> resolved;
        if (this.keys.length == 1) {
            resolved = this.keys[0].resolve(evaluation);
        }
        else {
            resolved = new ArrayList<>(this.keys.length);
            for (KeyTemplate template : this.keys) {
                template.resolve(evaluation, resolved);
            }
        }
        try {
            return this.shape.apply(LockRequest.of(resolved, this.waitTime, this.leaseTime));
        }
        catch (LockException ex) {
            throw new LockException("Lock key " + describeKeys() + " of " + this.origin + ": " + ex.getMessage(), ex);
        }
    }

    private String describeKeys() {
        StringBuilder sources = new StringBuilder();
        for (KeyTemplate template : this.keys) {
            sources.append((sources.length() == 0) ? "'" : ", '").append(template.source()).append('\'');
        }
        return sources.toString();
    }

    /** holdAtLeast, mode and permits. */
    RequestShape shape() {
        return this.shape;
    }

    String origin() {
        return this.origin;
    }

    OnLockFailure onFailure() {
        return this.onFailure;
    }

    @Nullable LockFallback fallback() {
        return this.fallback;
    }

    /** How long the method's work lasts, from its return type. */
    LockedReturn returns() {
        return this.returns;
    }

    static String describe(Method method, Class<?> targetClass) {
        Class<?> owner = (targetClass != null) ? targetClass : method.getDeclaringClass();
        return owner.getName() + "#" + method.getName();
    }
}
