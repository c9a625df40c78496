package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import io.github.redislock.DistributedLockTemplate;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;

/**
 * Applies the {@code @DistributedLock} interceptor to every bean method carrying the annotation. Its order
 * ({@code redis-lock.order}) decides where the lock sits among other advice; by default it is outside
 * {@code @Transactional}, so the lock is taken before the transaction begins and released after it ends.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient DistributedLockInterceptor interceptor;

    private final transient Pointcut pointcut;

    /**
     * @param template runs the locked calls; looked up on first use, so that creating the advisor early (as the
     * proxy machinery does) does not drag the Redis connection factory into early initialisation
     * @param beanFactory resolves {@code @bean} references in key expressions
     * @param order where the lock sits among other advice
     */
    public DistributedLockAdvisor(LockOperationSource operations, Supplier<DistributedLockTemplate> template,
            @Nullable BeanFactory beanFactory, int order) {
        LockOperations parsed = LockOperations.of(operations);
        this.interceptor = new DistributedLockInterceptor(parsed, template, beanFactory);
        this.pointcut = new LockedMethodPointcut(parsed);
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return this.pointcut;
    }

    @Override
    public Advice getAdvice() {
        return this.interceptor;
    }

    /** The methods that have an operation, on the classes that have any (also {@code @LeaderOnly}'s). */
    static final class LockedMethodPointcut extends StaticMethodMatcherPointcut {

        private final LockOperations operations;

        LockedMethodPointcut(LockOperations operations) {
            this.operations = operations;
            setClassFilter(new LockedClassFilter(operations));
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return this.operations.getOperation(method, targetClass) != null;
        }
    }

    private record LockedClassFilter(LockOperations operations) implements ClassFilter {

        @Override
        public boolean matches(Class<?> type) {
            return this.operations.hasLockedMethods(type);
        }
    }
}
