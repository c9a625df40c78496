package io.github.redislock.autoconfigure;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.annotation.DistributedLock;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Stands in when the lock advice is not installed: a bean with {@code @DistributedLock} methods would then
 * run them without any lock and without a word. Fails the start-up naming the first such method and why the
 * locks are missing, unless {@code redis-lock.enabled=false} says the application wants no locking, which
 * is said once at INFO.
 */
final class UnlockedMethodsGuard implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(UnlockedMethodsGuard.class);

    private final ConfigurableListableBeanFactory beanFactory;

    private final boolean disabled;

    UnlockedMethodsGuard(ConfigurableListableBeanFactory beanFactory, boolean disabled) {
        this.beanFactory = beanFactory;
        this.disabled = disabled;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String method = firstAnnotatedMethod(this.beanFactory, DistributedLock.class);
        if (method == null) {
            return;
        }
        if (this.disabled) {
            logger.info("Distributed locks are disabled (redis-lock.enabled=false): methods annotated "
                    + "@DistributedLock, such as " + method + ", run without a lock");
            return;
        }
        throw new LockConfigurationException(method + " is annotated @DistributedLock, but no lock would be taken: "
                + reason(), "Add Spring Data Redis (spring-boot-starter-data-redis) and configure Redis "
                        + "(spring.data.redis.*) so that there is a RedisConnectionFactory bean, or set "
                        + "redis-lock.enabled=false to run such methods without a lock on purpose.");
    }

    private String reason() {
        ClassLoader classLoader = this.beanFactory.getBeanClassLoader();
        if (!ClassUtils.isPresent("org.springframework.data.redis.core.StringRedisTemplate", classLoader)) {
            return "Spring Data Redis is not on the class path.";
        }
        if (!ClassUtils.isPresent("org.springframework.aop.framework.ProxyFactory", classLoader)) {
            return "Spring AOP is not on the class path.";
        }
        return "there is no RedisConnectionFactory bean.";
    }

    /** The first method of a bean annotated with the annotation, as {@code Class#method}; null when none is. */
    static @Nullable String firstAnnotatedMethod(ConfigurableListableBeanFactory beanFactory,
            Class<? extends Annotation> annotation) {
        for (String name : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = beanFactory.getType(name, false);
            if (type == null || !AnnotationUtils.isCandidateClass(type, annotation)) {
                continue;
            }
            Class<?> userClass = ClassUtils.getUserClass(type);
            AtomicReference<String> found = new AtomicReference<>();
            ReflectionUtils.doWithMethods(userClass, (Method candidate) -> {
                if (found.get() == null && AnnotatedElementUtils.hasAnnotation(candidate, annotation)) {
                    found.set(userClass.getName() + "#" + candidate.getName());
                }
            }, ReflectionUtils.USER_DECLARED_METHODS);
            if (found.get() != null) {
                return found.get();
            }
        }
        return null;
    }
}
