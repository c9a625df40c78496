package io.github.redislock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Where the interceptor and the advisor find a method's parsed operation: {@link LockOperationSource} for
 * {@code @DistributedLock}, {@link LeaderOnlyOperationSource} for {@code @LeaderOnly}.
 */
interface LockOperations {

    /** Whether any method of the class has an operation; parses and checks all of them on first sight. */
    boolean hasLockedMethods(Class<?> targetClass);

    /** The operation for a method invoked on the target class, or {@code null} if it has none. */
    @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass);

    static LockOperations of(LockOperationSource source) {
        return new LockOperations() {

            @Override
            public boolean hasLockedMethods(Class<?> targetClass) {
                return source.hasLockedMethods(targetClass);
            }

            @Override
            public @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
                return source.getOperation(method, targetClass);
            }
        };
    }
}
