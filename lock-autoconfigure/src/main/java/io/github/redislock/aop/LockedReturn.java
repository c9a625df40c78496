package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import io.github.redislock.InvalidLockDefinitionException;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How long a locked method's work lasts, decided once from its return type: until it returns (plain values),
 * until the returned {@code CompletionStage} completes, until the returned publisher ({@code Mono},
 * {@code Flux} and whatever Spring's {@link ReactiveAdapterRegistry} knows) terminates or is cancelled, until a
 * Kotlin {@code suspend fun} returns (however often it suspends), or, for a Kotlin {@code Flow}, for each
 * collection until it ends. A return type whose completion cannot be observed fails the start-up, rather than
 * holding the lock only while the work is handed out. Kotlin is looked at only through Spring's
 * {@link KotlinDetector} and class names, so nothing of Kotlin is loaded for a Java method.
 */
final class LockedReturn {

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
            LockedReturn.class.getClassLoader());

    private static final String FLOW = "kotlinx.coroutines.flow.Flow";

    private static final boolean COROUTINES_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.CoroutineScope",
            LockedReturn.class.getClassLoader());

    enum Kind {

        /** The work ends when the method returns. */
        PLAIN,

        /** The work ends when the returned {@code CompletionStage} completes. */
        STAGE,

        /** The work ends when the returned publisher terminates or is cancelled. */
        REACTIVE,

        /** A Kotlin {@code suspend fun}: the work ends when it returns or throws, after any number of suspensions. */
        SUSPENDING,

        /** The method returns a Kotlin {@code Flow}: the work runs during each collection and ends with it. */
        FLOW
    }

    /** A plain value that is not an {@code Optional}. */
    static final LockedReturn VALUE = new LockedReturn(Kind.PLAIN, null, false);

    private final Kind kind;

    private final @Nullable ReactiveAdapter adapter;

    private final boolean optional;

    private LockedReturn(Kind kind, @Nullable ReactiveAdapter adapter, boolean optional) {
        this.kind = kind;
        this.adapter = adapter;
        this.optional = optional;
    }

    static LockedReturn of(Method method, String origin) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            checkCoroutines(origin, "the method is a Kotlin suspend function");
            Class<?> result = suspendResult(method);
            if (result != null && outlivesTheCall(result)) {
                throw new InvalidLockDefinitionException(origin, "the method is a suspend function returning "
                        + result.getName() + ", whose work runs after the function has returned, so the lock would "
                        + "be released while it runs. Declare it without suspend (fun ...(): " + result.getSimpleName()
                        + "<T>): the lock is then held until that work ends");
            }
            return new LockedReturn(Kind.SUSPENDING, null, false);
        }
        Class<?> type = method.getReturnType();
        if (isFlow(type)) {
            checkCoroutines(origin, "the method returns a Kotlin Flow");
            return new LockedReturn(Kind.FLOW, null, false);
        }
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return new LockedReturn(Kind.STAGE, null, false);
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
        if (adapter != null && !CompletionStage.class.isAssignableFrom(type)) {
            if (!REACTOR_PRESENT) {
                throw new InvalidLockDefinitionException(origin, "the method returns " + type.getName()
                        + ", whose work runs when it is subscribed to; locking it needs Project Reactor "
                        + "(reactor-core) on the class path");
            }
            return new LockedReturn(Kind.REACTIVE, adapter, false);
        }
        if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)) {
            throw unsupported(origin, type);
        }
        return new LockedReturn(Kind.PLAIN, null, type == Optional.class);
    }

    private static void checkCoroutines(String origin, String what) {
        if (!COROUTINES_PRESENT) {
            throw new InvalidLockDefinitionException(origin, what + "; locking it needs kotlinx-coroutines-core "
                    + "on the class path");
        }
    }

    /** Whether the type is (a subtype of) Kotlin's {@code Flow}, by name: nothing is loaded for a Java type. */
    private static boolean isFlow(@Nullable Class<?> type) {
        if (type == null || type.isPrimitive() || type.getName().startsWith("java.")) {
            return false;
        }
        if (type.getName().equals(FLOW)) {
            return true;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            if (isFlow(implemented)) {
                return true;
            }
        }
        return isFlow(type.getSuperclass());
    }

    /** Whether work handed out as this type goes on after it is returned: a flow, a publisher, a future. */
    private static boolean outlivesTheCall(Class<?> type) {
        return isFlow(type) || Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
                || ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
    }

    /**
     * The class a suspend function returns: the type argument of its trailing {@code Continuation<? super R>}
     * parameter (read without kotlin-reflect); {@code null} when it is not a class.
     */
    private static @Nullable Class<?> suspendResult(Method method) {
        Type[] parameters = method.getGenericParameterTypes();
        if (parameters.length == 0 || !(parameters[parameters.length - 1] instanceof ParameterizedType continuation)) {
            return null;
        }
        Type result = continuation.getActualTypeArguments()[0];
        if (result instanceof WildcardType wildcard && wildcard.getLowerBounds().length == 1) {
            result = wildcard.getLowerBounds()[0];
        }
        if (result instanceof ParameterizedType parameterized) {
            result = parameterized.getRawType();
        }
        return (result instanceof Class<?> type) ? type : null;
    }

    private static InvalidLockDefinitionException unsupported(String origin, Class<?> type) {
        return new InvalidLockDefinitionException(origin, "the method returns " + type.getName() + ", whose "
                + "completion the lock cannot observe, so the lock would be released while the work still runs; "
                + "return CompletableFuture, CompletionStage, a Mono or a Flux, or a plain value");
    }

    Kind kind() {
        return this.kind;
    }

    /** The adapter of a reactive return type. */
    @Nullable ReactiveAdapter adapter() {
        return this.adapter;
    }

    /** What a skipped call returns: nothing, in the shape of the return type. */
    @Nullable Object skipped() {
        return switch (this.kind) {
            case PLAIN -> this.optional ? Optional.empty() : null;
            case STAGE -> CompletableFuture.completedFuture(null);
            case REACTIVE -> this.adapter.fromPublisher(ReactiveLocking.empty());
            // Kotlin's null: what a skipped suspend function returns (see docs/kotlin.md on non-null return types).
            case SUSPENDING -> null;
            case FLOW -> SuspendingLocking.emptyFlow();
        };
    }
}
