package io.github.redislock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.OnLeaseLost;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.core.GuardedLock;
import io.github.redislock.core.LockedCall;
import io.github.redislock.core.RedisLockClient;
import io.github.redislock.key.KeyEvaluation;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

/**
 * The interceptor behind {@code @DistributedLock}: resolve the keys, take the locks, run the method, release
 * in {@code finally}. Parsing lives in {@link LockOperationSource}, locking in {@link RedisLockClient}.
 */
public final class DistributedLockAspect implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(DistributedLockAspect.class);

    private final LockOperationSource operations;

    private final Supplier<RedisLockClient> clientSupplier;

    private final BeanFactory beanFactory;

    private final Supplier<OnLeaseLost> onLeaseLost;

    private volatile RedisLockClient client;

    /**
     * @param clientSupplier looked up on first use, so that creating the advisor early (as the proxy
     * machinery does) does not drag the Redis connection factory into early initialisation
     */
    public DistributedLockAspect(LockOperationSource operations, Supplier<RedisLockClient> clientSupplier,
            BeanFactory beanFactory, Supplier<OnLeaseLost> onLeaseLost) {
        this.operations = operations;
        this.clientSupplier = clientSupplier;
        this.beanFactory = beanFactory;
        this.onLeaseLost = onLeaseLost;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
        LockOperation operation = this.operations.getOperation(invocation.getMethod(), targetClass);
        if (operation == null) {
            return invocation.proceed();
        }
        RedisLockClient lockClient = client();
        KeyEvaluation evaluation = new KeyEvaluation(invocation.getMethod(), invocation.getArguments(), target,
                targetClass, this.beanFactory);
        List<String> keys = operation.redisKeys(evaluation, lockClient);
        long start = System.nanoTime();
        GuardedLock handle = lockClient.acquire(keys, operation.waitNanos(), operation.leaseMillis(),
                operation.renewed());
        if (handle == null) {
            return notAcquired(operation, invocation, keys, Duration.ofNanos(System.nanoTime() - start));
        }
        return LockedCall.run(handle, this.onLeaseLost.get() == OnLeaseLost.THROW, operation.origin(),
                invocation::proceed);
    }

    private Object notAcquired(LockOperation operation, MethodInvocation invocation, List<String> keys, Duration waited)
            throws Throwable {
        LockNotAcquiredException failure = new LockNotAcquiredException(keys, waited);
        if (operation.fallback() != null) {
            return operation.fallback().invoke(invocation.getThis(), invocation.getArguments(), failure);
        }
        if (operation.onFailure() == OnLockFailure.SKIP) {
            if (logger.isDebugEnabled()) {
                logger.debug("Skipped " + operation.origin() + ": " + failure.getMessage());
            }
            return operation.returnsOptional() ? Optional.empty() : null;
        }
        throw failure;
    }

    private RedisLockClient client() {
        RedisLockClient current = this.client;
        if (current == null) {
            current = this.clientSupplier.get();
            this.client = current;
        }
        return current;
    }
}
