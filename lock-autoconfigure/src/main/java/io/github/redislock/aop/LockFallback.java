package io.github.redislock.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import io.github.redislock.LockNotAcquiredException;

import org.springframework.util.ReflectionUtils;

/** The method named by {@code fallbackMethod}, resolved at start-up, called on the target bean. */
final class LockFallback {

    private final Method method;

    private final boolean takesException;

    LockFallback(Method method, boolean takesException) {
        this.method = method;
        this.takesException = takesException;
        ReflectionUtils.makeAccessible(method);
    }

    Object invoke(Object target, Object[] args, LockNotAcquiredException failure) throws Throwable {
        Object[] arguments = args;
        if (this.takesException) {
            arguments = Arrays.copyOf(args, args.length + 1);
            arguments[args.length] = failure;
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
