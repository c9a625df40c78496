package io.github.redislock.aop;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.annotation.OnLockFailure;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.ReactiveAdapter;

/**
 * The interceptor behind {@code @DistributedLock}, a thin adapter over {@link DistributedLockTemplate}: find
 * the method's parsed {@link LockOperation}, resolve its keys into a request, and let the template take the
 * locks, run the method and release. What the method throws travels through the template wrapped (as
 * Spring's {@code CacheInterceptor} does), so that a {@link LockNotAcquiredException} reaching this class is
 * always about this method's own locks, and then handled the way the annotation says.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

    private final LockOperations operations;

    private final Supplier<DistributedLockTemplate> templateSupplier;

    private final @Nullable BeanFactory beanFactory;

    private volatile @Nullable DistributedLockTemplate template;

    /**
     * @param templateSupplier looked up on first use, so that creating the advisor early (as the proxy
     * machinery does) does not drag the Redis connection factory into early initialisation
     */
    DistributedLockInterceptor(LockOperations operations, Supplier<DistributedLockTemplate> templateSupplier,
            @Nullable BeanFactory beanFactory) {
        this.operations = operations;
        this.templateSupplier = templateSupplier;
        this.beanFactory = beanFactory;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
        LockOperation operation = this.operations.getOperation(invocation.getMethod(), targetClass);
        if (operation == null) {
            return invocation.proceed();
        }
        KeyEvaluation evaluation = new KeyEvaluation(invocation.getMethod(), invocation.getArguments(), target,
                targetClass, this.beanFactory);
        LockRequest request = operation.request(evaluation);
        LockedReturn returns = operation.returns();
        if (returns.kind() == LockedReturn.Kind.REACTIVE) {
            return reactive(operation, invocation, request, returns.adapter());
        }
        if (returns.kind() == LockedReturn.Kind.SUSPENDING) {
            return SuspendingLocking.call(template(), operation, request, invocation);
        }
        if (returns.kind() == LockedReturn.Kind.FLOW) {
            return SuspendingLocking.flow(template(), operation, request, invocation);
        }
        try {
            if (returns.kind() == LockedReturn.Kind.STAGE) {
                return template().executeAsync(request, () -> (CompletionStage<?>) proceed(invocation));
            }
            return template().execute(request, () -> proceed(invocation));
        }
        catch (ThrowableWrapper wrapper) {
            throw wrapper.unwrap();
        }
        catch (LockNotAcquiredException ex) {
            return notAcquired(operation, invocation.getThis(), invocation.getArguments(), ex);
        }
    }

    /**
     * A method returning a publisher: nothing is locked or called until subscription, and the lock lasts until
     * the publisher terminates (see {@link ReactiveLocking}).
     */
    private Object reactive(LockOperation operation, MethodInvocation invocation, LockRequest request,
            ReactiveAdapter adapter) {
        return adapter.fromPublisher(ReactiveLocking.lock(template(), request, adapter.isMultiValue(),
                () -> adapter.toPublisher(proceedRethrowing(invocation)), (failure) -> {
                    try {
                        return adapter.toPublisher(notAcquired(operation, invocation.getThis(),
                                invocation.getArguments(), failure));
                    }
                    catch (RuntimeException | Error ex) {
                        throw ex;
                    }
                    catch (Throwable ex) {
                        throw new IllegalStateException(ex);
                    }
                }));
    }

    /** The method's own exceptions, unchanged, for a reactive pipeline to turn into an error signal. */
    private static @Nullable Object proceedRethrowing(MethodInvocation invocation) {
        try {
            return invocation.proceed();
        }
        catch (Throwable ex) {
            throw DistributedLockInterceptor.<RuntimeException>sneaky(ex);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable ex) throws E {
        throw (E) ex;
    }

    private static @Nullable Object proceed(MethodInvocation invocation) {
        try {
            return invocation.proceed();
        }
        catch (Throwable ex) {
            throw new ThrowableWrapper(ex);
        }
    }

    /**
     * What a call whose own lock stayed taken returns: the fallback's result, the skipped value, or the failure.
     * @param args the call's arguments (a suspend function's with the continuation a suspend fallback resumes)
     */
    static @Nullable Object notAcquired(LockOperation operation, @Nullable Object target, @Nullable Object[] args,
            LockNotAcquiredException failure) throws Throwable {
        if (operation.fallback() != null) {
            return operation.fallback().invoke(target, args, failure);
        }
        if (operation.onFailure() == OnLockFailure.SKIP) {
            if (logger.isDebugEnabled()) {
                logger.debug("Skipped " + operation.origin() + ": " + failure.getMessage());
            }
            return operation.returns().skipped();
        }
        throw failure;
    }

    private DistributedLockTemplate template() {
        DistributedLockTemplate current = this.template;
        if (current == null) {
            current = this.templateSupplier.get();
            this.template = current;
        }
        return current;
    }

    /**
     * Carries whatever the method threw through the template, untouched. A {@code CompletionException}, the
     * JDK's carrier of another failure, so that the template records the method's own exception on its
     * observation rather than this wrapper.
     */
    @SuppressWarnings("serial")
    private static final class ThrowableWrapper extends CompletionException {

        ThrowableWrapper(Throwable original) {
            // Suppression on (Throwable's default): a failed release is attached here.
            super(original.getMessage(), original);
        }

        /** No stack trace: it is never shown, and filling it would cost every failing call. */
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }

        /** The method's own exception, with what happened on release attached (a failed release). */
        Throwable unwrap() {
            Throwable original = getCause();
            for (Throwable suppressed : getSuppressed()) {
                original.addSuppressed(suppressed);
            }
            return original;
        }
    }
}
