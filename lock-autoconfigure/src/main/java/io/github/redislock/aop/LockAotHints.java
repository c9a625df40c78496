package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.github.redislock.annotation.DistributedLock;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * For native images, what {@code @DistributedLock} reaches by reflection: the public methods of the key
 * expressions' root object (SpEL calls them reflectively), and, per bean, the fallback methods its annotations
 * name (called through {@link Method#invoke}). Registered in {@code META-INF/spring/aot.factories}: the first as a
 * {@link RuntimeHintsRegistrar}, the second as a {@link BeanRegistrationAotProcessor}, which sees each bean class
 * at build time. Key expressions that navigate the application's own argument types ({@code #order.id}) need
 * hints for those types, as any SpEL in a native image does.
 */
final class LockAotHints implements RuntimeHintsRegistrar, BeanRegistrationAotProcessor {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection().registerType(KeyExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
    }

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Set<Method> fallbacks = fallbackMethods(registeredBean.getBeanClass());
        if (fallbacks.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            for (Method fallback : fallbacks) {
                generationContext.getRuntimeHints().reflection().registerMethod(fallback, ExecutableMode.INVOKE);
            }
        };
    }

    /** Every method named by a {@code fallbackMethod} on the class; overloads too, as the name is all it says. */
    static Set<Method> fallbackMethods(Class<?> beanClass) {
        Set<String> names = new LinkedHashSet<>();
        ReflectionUtils.doWithMethods(beanClass, (method) -> {
            DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
            if (lock != null && !lock.fallbackMethod().isEmpty()) {
                names.add(lock.fallbackMethod());
            }
        });
        Set<Method> methods = new LinkedHashSet<>();
        if (!names.isEmpty()) {
            ReflectionUtils.doWithMethods(beanClass, methods::add, (method) -> names.contains(method.getName()));
        }
        return methods;
    }
}
