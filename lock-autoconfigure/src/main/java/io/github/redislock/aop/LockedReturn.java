package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import io.github.redislock.InvalidLockDefinitionException;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How long a locked method's work lasts, decided once from its return type: until it returns (plain values),
 * until the returned {@code CompletionStage} completes, or until the returned publisher ({@code Mono},
 * {@code Flux} and whatever Spring's {@link ReactiveAdapterRegistry} knows) terminates or is cancelled. A
 * return type whose completion cannot be observed fails the start-up, rather than holding the lock only while
 * the work is handed out.
 */
final class LockedReturn {

    private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
            LockedReturn.class.getClassLoader());

    enum Kind {

        /** The work ends when the method returns. */
        PLAIN,

        /** The work ends when the returned {@code CompletionStage} completes. */
        STAGE,

        /** The work ends when the returned publisher terminates or is cancelled. */
        REACTIVE
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
        Class<?> type = method.getReturnType();
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
        };
    }
}
