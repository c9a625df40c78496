package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.github.redislock.InvalidLockDefinitionException;
import io.github.redislock.LockMode;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@code @DistributedLock} on methods and turns each into a {@link LockOperation}, once per method and
 * target class. When a bean class is first examined every annotated method of it is parsed, so a mistake in
 * any of them stops the application context at start-up with an {@link InvalidLockDefinitionException}
 * naming {@code Class#method}, not only in the first method the proxy machinery happens to look at.
 */
public final class LockOperationSource {

    private static final LockOperation NONE = new LockOperation("none", List.of(), Duration.ZERO, null,
            RequestShape.PLAIN, OnLockFailure.THROW, null, LockedReturn.VALUE);

    private final KeyTemplateParser parser;

    private final PropertyResolver placeholders;

    private final Supplier<Duration> defaultWaitTime;

    private final Supplier<Duration> defaultLeaseTime;

    private final Map<MethodClassKey, LockOperation> operations = new ConcurrentHashMap<>();

    private final Map<Class<?>, Boolean> classes = new ConcurrentHashMap<>();

    /**
     * @param beanFactory checks and resolves {@code @bean} references in keys (may be {@code null})
     * @param placeholders resolves {@code ${...}} in durations
     * @param defaultWaitTime used when {@code waitTime} is empty; asked only when a method is parsed, so that
     * creating this (early, as infrastructure) does not force the configuration properties into existence
     * @param defaultLeaseTime used when {@code leaseTime} is empty; asked likewise
     */
    public LockOperationSource(BeanFactory beanFactory, PropertyResolver placeholders,
            Supplier<Duration> defaultWaitTime, Supplier<Duration> defaultLeaseTime) {
        this(beanFactory, placeholders, defaultWaitTime, defaultLeaseTime, () -> KeyTemplate.DEFAULT_MAX_KEYS);
    }

    /**
     * @param maxKeysPerCall the most keys one call may lock ({@code redis-lock.max-keys-per-call}); asked
     * likewise
     * @see #LockOperationSource(BeanFactory, PropertyResolver, Supplier, Supplier)
     */
    public LockOperationSource(BeanFactory beanFactory, PropertyResolver placeholders,
            Supplier<Duration> defaultWaitTime, Supplier<Duration> defaultLeaseTime, IntSupplier maxKeysPerCall) {
        this.parser = new KeyTemplateParser(beanFactory, maxKeysPerCall);
        this.placeholders = placeholders;
        this.defaultWaitTime = defaultWaitTime;
        this.defaultLeaseTime = defaultLeaseTime;
    }

    /** Whether any method of the class is locked; parses and checks all of them on first sight. */
    boolean hasLockedMethods(Class<?> targetClass) {
        if (!AnnotationUtils.isCandidateClass(targetClass, DistributedLock.class)) {
            return false;
        }
        Boolean known = this.classes.get(targetClass);
        if (known != null) {
            return known;
        }
        // Not computeIfAbsent: parsing may create beans (configuration properties) whose own proxying comes
        // back here for another class, which a map must not see as a recursive update.
        boolean found = false;
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS)) {
            found |= getOperation(method, targetClass) != null;
        }
        this.classes.put(targetClass, found);
        return found;
    }

    /**
     * The methods parsed so far that share their keys (a read lock or a semaphore), for checks at start-up: by the
     * time every singleton is instantiated, every locked method of a singleton bean has been parsed.
     */
    public List<SharedDeclaration> sharedDeclarations() {
        List<SharedDeclaration> shared = new ArrayList<>();
        for (LockOperation operation : this.operations.values()) {
            if (operation != NONE && operation.shape().isShared()) {
                shared.add(new SharedDeclaration(operation.origin(), operation.shape().mode(),
                        operation.shape().permits()));
            }
        }
        return shared;
    }

    /**
     * A locked method that shares its keys.
     * @param method {@code Class#method}
     * @param mode its mode
     * @param permits its permit count
     */
    public record SharedDeclaration(String method, LockMode mode, int permits) {
    }

    /** The operation for a method invoked on the target class, or {@code null} if it is not locked. */
    @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
        MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
        LockOperation operation = this.operations.get(cacheKey);
        if (operation == null) {
            operation = Optional.ofNullable(parse(method, targetClass)).orElse(NONE);
            this.operations.put(cacheKey, operation);
        }
        return (operation != NONE) ? operation : null;
    }

    private @Nullable LockOperation parse(Method method, @Nullable Class<?> targetClass) {
        Method specific = BridgeMethodResolver.findBridgedMethod(
                (targetClass != null) ? AopUtils.getMostSpecificMethod(method, targetClass) : method);
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        if (annotation == null) {
            return null;
        }
        if (isSuspendBody(specific)) {
            return null;
        }
        String origin = LockOperation.describe(specific, targetClass);
        checkInterceptable(specific, origin);
        List<KeyTemplate> keys = parseKeys(annotation, specific, origin);
        Duration wait = duration(annotation.waitTime(), this.defaultWaitTime, "waitTime", origin);
        if (wait.isNegative()) {
            throw new InvalidLockDefinitionException(origin, "waitTime must not be negative: " + annotation.waitTime());
        }
        Duration lease = duration(annotation.leaseTime(), this.defaultLeaseTime, "leaseTime", origin);
        if (lease.toMillis() < 1) {
            throw new InvalidLockDefinitionException(origin, "leaseTime must be at least 1ms: " + annotation.leaseTime());
        }
        RequestShape shape = RequestShape.of(annotation,
                duration(annotation.holdAtLeast(), () -> Duration.ZERO, "holdAtLeast", origin), lease, origin);
        Class<?> returnType = specific.getReturnType();
        if (annotation.onFailure() == OnLockFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
            throw new InvalidLockDefinitionException(origin, "onFailure = SKIP needs a return value to skip with, "
                    + "but the method returns the primitive " + returnType + "; return a wrapper, Optional, or use THROW");
        }
        LockFallback fallback = null;
        if (!annotation.fallbackMethod().isEmpty()) {
            if (annotation.onFailure() == OnLockFailure.SKIP) {
                throw new InvalidLockDefinitionException(origin, "fallbackMethod and onFailure = SKIP exclude each other");
            }
            fallback = findFallback(annotation.fallbackMethod(), specific,
                    (targetClass != null) ? targetClass : specific.getDeclaringClass(), origin);
        }
        LockedReturn returns = LockedReturn.of(specific, origin);
        if (annotation.onFailure() == OnLockFailure.SKIP && returns.kind() == LockedReturn.Kind.SUSPENDING
                && KotlinDetector.isKotlinReflectPresent() && KotlinReturnTypes.returnsNonNull(specific)) {
            throw new InvalidLockDefinitionException(origin, "onFailure = SKIP returns null, but the suspend function's "
                    + "return type is not nullable; make it nullable (Int?), or use THROW or a fallbackMethod");
        }
        return new LockOperation(origin, keys, wait, annotation.leaseTime().isEmpty() ? null : lease, shape,
                annotation.onFailure(), fallback, returns);
    }

    /**
     * The static {@code name$suspendImpl} into which Kotlin compiles the body of an open suspend function (with its
     * annotations); calls go through the function itself, which is the one locked.
     */
    static boolean isSuspendBody(Method method) {
        return Modifier.isStatic(method.getModifiers()) && method.getName().endsWith("$suspendImpl")
                && KotlinDetector.isKotlinType(method.getDeclaringClass());
    }

    private static void checkInterceptable(Method method, String origin) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new InvalidLockDefinitionException(origin, "the method is " + Modifier.toString(modifiers)
                    + ", so calls to it cannot be intercepted and it would run unlocked; make it public and non-final");
        }
    }

    private List<KeyTemplate> parseKeys(DistributedLock annotation, Method method, String origin) {
        if (annotation.key().length == 0) {
            throw new InvalidLockDefinitionException(origin, "no key given");
        }
        List<KeyTemplate> keys = new ArrayList<>(annotation.key().length);
        for (String key : annotation.key()) {
            try {
                keys.add(this.parser.parse(key, method, origin));
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidLockDefinitionException(origin, ex.getMessage(), ex);
            }
        }
        return keys;
    }

    private Duration duration(String text, Supplier<Duration> fallback, String attribute, String origin) {
        if (text.isEmpty()) {
            return fallback.get();
        }
        String resolved;
        try {
            resolved = this.placeholders.resolveRequiredPlaceholders(text).trim();
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidLockDefinitionException(origin, attribute + " '" + text + "' cannot be resolved: "
                    + ex.getMessage(), ex);
        }
        try {
            return DurationStyle.detectAndParse(resolved);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidLockDefinitionException(origin, attribute + " '" + text + "' is not a duration "
                    + "(use e.g. 500ms, 2s, PT2S)", ex);
        }
    }

    private static LockFallback findFallback(String name, Method method, Class<?> targetClass, String origin) {
        boolean suspending = KotlinDetector.isSuspendingFunction(method);
        Class<?>[] all = method.getParameterTypes();
        // A suspend function's continuation is not an argument of the call: its fallback may be a suspend
        // function too (with a continuation of its own) or a plain one.
        Class<?>[] parameters = suspending ? Arrays.copyOf(all, all.length - 1) : all;
        Class<?>[] withException = Arrays.copyOf(parameters, parameters.length + 1);
        withException[parameters.length] = LockNotAcquiredException.class;
        Method plain = ReflectionUtils.findMethod(targetClass, name, parameters);
        Method extended = findWithTrailingException(targetClass, name, parameters, null);
        if (suspending && plain == null && extended == null) {
            plain = ReflectionUtils.findMethod(targetClass, name, all);
            extended = findWithTrailingException(targetClass, name, parameters, all[all.length - 1]);
        }
        Method found = (plain != null) ? plain : extended;
        if (found == null) {
            throw new InvalidLockDefinitionException(origin, "fallbackMethod '" + name + "' not found: declare "
                    + name + "(" + typeNames(parameters) + ") or " + name + "(" + typeNames(withException) + ")"
                    + (suspending ? " (suspend or not)" : "") + " on " + targetClass.getName());
        }
        Class<?> expected = method.getReturnType();
        if (expected != void.class && !ClassUtils.isAssignable(expected, found.getReturnType())) {
            throw new InvalidLockDefinitionException(origin, "fallbackMethod '" + name + "' returns "
                    + found.getReturnType().getName() + ", which is not assignable to " + expected.getName());
        }
        if (AnnotatedElementUtils.hasAnnotation(found, DistributedLock.class)) {
            throw new InvalidLockDefinitionException(origin, "fallbackMethod '" + name + "' is itself locked with "
                    + "@DistributedLock; called when the lock is busy it would run on the raw target, unlocked. "
                    + "Name a method without @DistributedLock");
        }
        if (Modifier.isStatic(found.getModifiers())) {
            throw new InvalidLockDefinitionException(origin, "fallbackMethod '" + name + "' must not be static");
        }
        return new LockFallback(found, found == extended && plain == null, suspending,
                suspending && KotlinDetector.isSuspendingFunction(found));
    }

    /**
     * A method taking the parameters, then a {@code LockNotAcquiredException}, then (for a suspend fallback)
     * the given continuation type.
     */
    private static @Nullable Method findWithTrailingException(Class<?> type, String name, Class<?>[] parameters,
            @Nullable Class<?> continuation) {
        int length = parameters.length + ((continuation != null) ? 2 : 1);
        for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
            Class<?>[] types = candidate.getParameterTypes();
            if (candidate.getName().equals(name) && types.length == length
                    && types[parameters.length].isAssignableFrom(LockNotAcquiredException.class)
                    && (continuation == null || types[length - 1] == continuation)
                    && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)) {
                return candidate;
            }
        }
        return null;
    }

    private static String typeNames(Class<?>[] types) {
        StringBuilder names = new StringBuilder();
        for (Class<?> type : types) {
            if (names.length() > 0) {
                names.append(", ");
            }
            names.append(type.getSimpleName());
        }
        return names.toString();
    }
}
