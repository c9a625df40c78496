package io.github.redislock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The stack of locks guarding the work the current thread is doing, kept by {@link LockedCall} around the
 * guarded call and read through {@link LockContext}. A coroutine holding locks installs its own stack while it
 * runs on a thread and puts the thread's back when it suspends (its context element, {@code CoroutineLocks}).
 */
final class ThreadLocks {

    /**
     * The current thread's handles, innermost last: nothing, one {@link LockHandle} (by far the most common,
     * and then nothing is allocated but the thread-local entry), or a {@code Deque} of them when nested.
     */
    private static final ThreadLocal<Object> HELD = new ThreadLocal<>();

    private ThreadLocks() {
    }

    @SuppressWarnings("unchecked")
    static void push(LockHandle handle) {
        Object held = HELD.get();
        if (held == null) {
            HELD.set(handle);
        }
        else if (held instanceof LockHandle only) {
            Deque<LockHandle> nested = new ArrayDeque<>(4);
            nested.addLast(only);
            nested.addLast(handle);
            HELD.set(nested);
        }
        else {
            ((Deque<LockHandle>) held).addLast(handle);
        }
    }

    /**
     * Takes the handle off. The thread-local's entry stays, holding nothing: the next lock on this thread sets it
     * again in place, where removing it would make a new entry for every call.
     */
    static void pop(LockHandle handle) {
        Object held = HELD.get();
        if (held == handle) {
            HELD.set(null);
        }
        else if (held instanceof Deque<?> nested) {
            nested.removeLastOccurrence(handle);
            if (nested.isEmpty()) {
                HELD.set(null);
            }
        }
    }

    /**
     * Makes the given locks (outermost first, at least one) the current thread's, for a coroutine that resumes
     * on it holding them; returns what the thread had, for {@link #restore}. The coroutine's locks get a stack
     * of their own here, as a locked blocking call inside the coroutine pushes onto it.
     */
    static @Nullable Object install(List<LockHandle> handles) {
        Object previous = HELD.get();
        HELD.set((handles.size() == 1) ? handles.get(0) : new ArrayDeque<>(handles));
        return previous;
    }

    /** Puts back what {@link #install} replaced, when the coroutine suspends or ends on this thread. */
    static void restore(@Nullable Object previous) {
        if (previous == null) {
            HELD.remove();
        }
        else {
            HELD.set(previous);
        }
    }

    @SuppressWarnings("unchecked")
    static @Nullable LockHandle innermost() {
        Object held = HELD.get();
        return (held instanceof Deque<?> nested) ? (LockHandle) nested.peekLast() : (LockHandle) held;
    }

    @SuppressWarnings("unchecked")
    static List<LockHandle> all() {
        Object held = HELD.get();
        if (held == null) {
            return List.of();
        }
        return (held instanceof Deque<?> nested) ? List.copyOf((Deque<LockHandle>) nested)
                : List.of((LockHandle) held);
    }
}
