package io.github.redislock.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockNotAcquiredException;

import org.springframework.util.ReflectionUtils;

/**
 * The method named by {@code fallbackMethod}, resolved at start-up, called on the target bean. For a locked Kotlin
 * {@code suspend fun} the fallback may be a suspend function too: it then gets the continuation to resume (the
 * last of the locked method's arguments); a plain fallback of a suspend function gets the arguments without it.
 */
final class LockFallback {

    private final Method method;

    private final boolean takesException;

    /** Whether the locked method is a suspend function: its last argument is its continuation. */
    private final boolean lockedSuspending;

    /** Whether the fallback itself is a suspend function, called with a continuation as its last argument. */
    private final boolean suspending;

    LockFallback(Method method, boolean takesException, boolean lockedSuspending, boolean suspending) {
        this.method = method;
        this.takesException = takesException;
        this.lockedSuspending = lockedSuspending;
        this.suspending = suspending;
        ReflectionUtils.makeAccessible(method);
    }

    /** Whether the fallback is a suspend function, which may return {@code COROUTINE_SUSPENDED}. */
    boolean isSuspending() {
        return this.suspending;
    }

    /**
     * @param args the locked method's arguments; for a suspend function, the continuation the fallback resumes
     * (when it is a suspend function itself) last
     */
    @Nullable Object invoke(@Nullable Object target, @Nullable Object[] args, LockNotAcquiredException failure)
            throws Throwable {
        int plain = this.lockedSuspending ? args.length - 1 : args.length;
        @Nullable Object[] arguments = new Object[plain + (this.takesException ? 1 : 0) + (this.suspending ? 1 : 0)];
        System.arraycopy(args, 0, arguments, 0, plain);
        if (this.takesException) {
            arguments[plain] = failure;
        }
        if (this.suspending) {
            arguments[arguments.length - 1] = args[args.length - 1];
        }
        try {
            return this.method.invoke(target, arguments);
        }
        catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }

    @Override
    public String toString() {
        return this.method.toGenericString();
    }
}
