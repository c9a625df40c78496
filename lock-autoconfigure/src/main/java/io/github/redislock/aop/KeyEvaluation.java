package io.github.redislock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;

/**
 * One call's arguments, against which the method's key templates are resolved. The SpEL evaluation context
 * is built only if a template needs it: keys made of literals and plain parameter references never pay
 * for one.
 */
final class KeyEvaluation {

    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final Method method;

    private final Object[] args;

    private final Object target;

    private final Class<?> targetClass;

    private final BeanFactory beanFactory;

    private EvaluationContext context;

    KeyEvaluation(Method method, @Nullable Object[] args, @Nullable Object target, @Nullable Class<?> targetClass,
            @Nullable BeanFactory beanFactory) {
        this.method = method;
        this.args = args;
        this.target = target;
        this.targetClass = targetClass;
        this.beanFactory = beanFactory;
    }

    Object argument(int index) {
        return this.args[index];
    }

    EvaluationContext context() {
        if (this.context == null) {
            KeyExpressionRoot root = new KeyExpressionRoot(this.method, this.args, this.target, this.targetClass);
            MethodBasedEvaluationContext created = new MethodBasedEvaluationContext(root, this.method, this.args,
                    PARAMETER_NAMES);
            if (this.beanFactory != null) {
                created.setBeanResolver(new BeanFactoryResolver(this.beanFactory));
            }
            this.context = created;
        }
        return this.context;
    }

    static String[] parameterNames(Method method) {
        return PARAMETER_NAMES.getParameterNames(method);
    }
}
