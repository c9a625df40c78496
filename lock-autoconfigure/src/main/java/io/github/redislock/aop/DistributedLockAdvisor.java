package io.github.redislock.aop;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies {@link DistributedLockAspect} to every bean method carrying {@code @DistributedLock}. Its order
 * ({@code redis-lock.order}) decides where the lock sits among other advice; by default it is outside
 * {@code @Transactional}, so the lock is taken before the transaction begins and released after it ends.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient DistributedLockAspect aspect;

    private final transient Pointcut pointcut;

    public DistributedLockAdvisor(LockOperationSource operations, DistributedLockAspect aspect, int order) {
        this.aspect = aspect;
        this.pointcut = new LockedMethodPointcut(operations);
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return this.pointcut;
    }

    @Override
    public Advice getAdvice() {
        return this.aspect;
    }

    private static final class LockedMethodPointcut extends StaticMethodMatcherPointcut {

        private final LockOperationSource operations;

        LockedMethodPointcut(LockOperationSource operations) {
            this.operations = operations;
            setClassFilter(new LockedClassFilter(operations));
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return this.operations.getOperation(method, targetClass) != null;
        }
    }

    private record LockedClassFilter(LockOperationSource operations) implements ClassFilter {

        @Override
        public boolean matches(Class<?> type) {
            return this.operations.hasLockedMethods(type);
        }
    }
}
