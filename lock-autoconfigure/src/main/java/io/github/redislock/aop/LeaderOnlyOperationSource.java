package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.github.redislock.InvalidLockDefinitionException;
import io.github.redislock.LockException;
import io.github.redislock.LockRequest;
import io.github.redislock.annotation.LeaderOnly;
import io.github.redislock.annotation.OnLockFailure;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@code @LeaderOnly} on methods and turns each into a {@link LockOperation} whose one "key" is the
 * election's name, that never waits and skips when not granted ({@link OnLockFailure#SKIP}): the interceptor then
 * runs it through the template over the elections ({@code LeaderOnlyCalls.locks()}) exactly as a skipping
 * {@code @DistributedLock} runs through the template over the locks. Parsed once per method and target class; every
 * annotated method of a class is parsed when the class is first examined, so a mistake fails the start-up.
 */
final class LeaderOnlyOperationSource implements LockOperations {

    private final PropertyResolver placeholders;

    private final Supplier<@Nullable String> defaultElection;

    private final Map<MethodClassKey, Optional<LockOperation>> operations = new ConcurrentHashMap<>();

    private final Map<Class<?>, Boolean> classes = new ConcurrentHashMap<>();

    /** The elections the parsed methods name, for the check that each has a candidate. */
    private final Set<String> elections = ConcurrentHashMap.newKeySet();

    /**
     * @param placeholders resolves {@code ${...}} in election names
     * @param defaultElection the election of {@code @LeaderOnly} without a name ({@code redis-lock.leader.name}),
     * {@code null} when there is none; asked only when such a method is parsed
     */
    LeaderOnlyOperationSource(PropertyResolver placeholders, Supplier<@Nullable String> defaultElection) {
        this.placeholders = placeholders;
        this.defaultElection = defaultElection;
    }

    @Override
    public boolean hasLockedMethods(Class<?> targetClass) {
        if (!AnnotationUtils.isCandidateClass(targetClass, LeaderOnly.class)) {
            return false;
        }
        return this.classes.computeIfAbsent(targetClass, (type) -> {
            boolean found = false;
            for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
                found |= getOperation(method, type) != null;
            }
            return found;
        });
    }

    @Override
    public @Nullable LockOperation getOperation(Method method, @Nullable Class<?> targetClass) {
        MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
        Optional<LockOperation> operation = this.operations.get(cacheKey);
        if (operation == null) {
            operation = Optional.ofNullable(parse(method, targetClass));
            this.operations.put(cacheKey, operation);
        }
        return operation.orElse(null);
    }

    Set<String> elections() {
        return Set.copyOf(this.elections);
    }

    private @Nullable LockOperation parse(Method method, @Nullable Class<?> targetClass) {
        Method specific = BridgeMethodResolver.findBridgedMethod(
                (targetClass != null) ? AopUtils.getMostSpecificMethod(method, targetClass) : method);
        LeaderOnly annotation = AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
        }
        if (annotation == null || LockOperationSource.isSuspendBody(specific)) {
            return null;
        }
        String origin = LockOperation.describe(specific, targetClass);
        int modifiers = specific.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new InvalidLockDefinitionException(origin, "@LeaderOnly on a " + Modifier.toString(modifiers)
                    + " method: calls to it cannot be intercepted, so it would run on every instance; make it public "
                    + "and non-final");
        }
        LockedReturn returns = LockedReturn.of(specific, origin);
        Class<?> returnType = specific.getReturnType();
        if (returnType.isPrimitive() && returnType != void.class) {
            throw new InvalidLockDefinitionException(origin, "@LeaderOnly skips the call where this instance does not "
                    + "lead, but the method returns the primitive " + returnType + ", which has no value to skip with; "
                    + "return a wrapper or Optional");
        }
        if (returns.kind() == LockedReturn.Kind.SUSPENDING && KotlinDetector.isKotlinReflectPresent()
                && KotlinReturnTypes.returnsNonNull(specific)) {
            throw new InvalidLockDefinitionException(origin, "@LeaderOnly returns null where this instance does not "
                    + "lead, but the suspend function's return type is not nullable; make it nullable (Int?)");
        }
        String election = election(annotation, origin);
        this.elections.add(election);
        KeyTemplate name = new KeyTemplate(election, origin, List.of(new KeyTemplate.Literal(election)), 1);
        return new LockOperation(origin, List.of(name), Duration.ZERO, null, RequestShape.PLAIN, OnLockFailure.SKIP, null,
                returns);
    }

    private String election(LeaderOnly annotation, String origin) {
        String election;
        if (annotation.value().isEmpty()) {
            election = this.defaultElection.get();
            if (election == null || election.isBlank()) {
                throw new InvalidLockDefinitionException(origin, "@LeaderOnly names no election and "
                        + "redis-lock.leader.name is not set; set it, or name the election: @LeaderOnly(\"reports\")");
            }
        }
        else {
            try {
                election = this.placeholders.resolveRequiredPlaceholders(annotation.value()).trim();
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidLockDefinitionException(origin, "@LeaderOnly's election '" + annotation.value()
                        + "' cannot be resolved: " + ex.getMessage(), ex);
            }
        }
        try {
            LockRequest.of(election, Duration.ZERO, null);
        }
        catch (LockException ex) {
            // Not echoed: the name may hold a control character, which would forge log lines.
            throw new InvalidLockDefinitionException(origin, "@LeaderOnly's election is no valid name: "
                    + ex.getMessage(), ex);
        }
        return election;
    }
}
