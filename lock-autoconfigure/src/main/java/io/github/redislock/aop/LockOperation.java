package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.RedisLockClient;
import io.github.redislock.key.KeyEvaluation;
import io.github.redislock.key.KeyTemplate;

/**
 * Everything {@code @DistributedLock} says about one method, parsed and checked once at start-up: key
 * templates, durations (defaults and placeholders already applied), failure handling.
 */
final class LockOperation {

    private final String origin;

    private final KeyTemplate[] keys;

    private final long waitNanos;

    private final long leaseMillis;

    private final boolean renewed;

    private final OnLockFailure onFailure;

    private final LockFallback fallback;

    private final boolean returnsOptional;

    LockOperation(String origin, List<KeyTemplate> keys, long waitNanos, long leaseMillis, boolean renewed,
            OnLockFailure onFailure, LockFallback fallback, boolean returnsOptional) {
        this.origin = origin;
        this.keys = keys.toArray(new KeyTemplate[0]);
        this.waitNanos = waitNanos;
        this.leaseMillis = leaseMillis;
        this.renewed = renewed;
        this.onFailure = onFailure;
        this.fallback = fallback;
        this.returnsOptional = returnsOptional;
    }

    /**
     * The Redis keys for one call: resolved, prefixed, validated, duplicates removed, in canonical
     * (lexicographic) order so that callers naming the same keys in different orders cannot deadlock.
     */
    List<String> redisKeys(KeyEvaluation evaluation, RedisLockClient client) {
        if (this.keys.length == 1) {
            List<String> resolved = new ArrayList<>(1);
            this.keys[0].resolve(evaluation, resolved);
            if (resolved.size() == 1) {
                return List.of(client.redisKey(resolved.get(0), this.keys[0].source()));
            }
        }
        TreeSet<String> ordered = new TreeSet<>();
        List<String> resolved = new ArrayList<>();
        for (KeyTemplate template : this.keys) {
            resolved.clear();
            template.resolve(evaluation, resolved);
            for (String key : resolved) {
                ordered.add(client.redisKey(key, template.source()));
            }
        }
        return List.copyOf(ordered);
    }

    String origin() {
        return this.origin;
    }

    long waitNanos() {
        return this.waitNanos;
    }

    long leaseMillis() {
        return this.leaseMillis;
    }

    /** True when no fixed lease was given: the lock is kept alive by renewal while the method runs. */
    boolean renewed() {
        return this.renewed;
    }

    OnLockFailure onFailure() {
        return this.onFailure;
    }

    LockFallback fallback() {
        return this.fallback;
    }

    boolean returnsOptional() {
        return this.returnsOptional;
    }

    static String describe(Method method, Class<?> targetClass) {
        Class<?> owner = (targetClass != null) ? targetClass : method.getDeclaringClass();
        return owner.getName() + "#" + method.getName();
    }
}
