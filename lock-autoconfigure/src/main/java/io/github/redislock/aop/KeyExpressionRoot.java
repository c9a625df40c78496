package io.github.redislock.aop;

import java.lang.reflect.Method;

/**
 * The root object of key expressions: {@code #{methodName}}, {@code #{targetClass.simpleName}},
 * {@code #{args[0]}}. Arguments are also variables: {@code #id}, {@code #p0}, {@code #a0}.
 */
final class KeyExpressionRoot {

    private final Method method;

    private final Object[] args;

    private final Object target;

    private final Class<?> targetClass;

    KeyExpressionRoot(Method method, Object[] args, Object target, Class<?> targetClass) {
        this.method = method;
        this.args = args;
        this.target = target;
        this.targetClass = targetClass;
    }

    public Method getMethod() {
        return this.method;
    }

    public String getMethodName() {
        return this.method.getName();
    }

    public Object[] getArgs() {
        return this.args;
    }

    public Object getTarget() {
        return this.target;
    }

    public Class<?> getTargetClass() {
        return this.targetClass;
    }
}
