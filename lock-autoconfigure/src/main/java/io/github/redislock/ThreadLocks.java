package io.github.redislock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The stack of locks guarding the work the current thread is doing, kept by {@link LockedCall} around the
 * guarded call and read through {@link LockContext}.
 */
final class ThreadLocks {

    private static final ThreadLocal<Deque<LockHandle>> HELD = new ThreadLocal<>();

    private ThreadLocks() {
    }

    static void push(LockHandle handle) {
        Deque<LockHandle> held = HELD.get();
        if (held == null) {
            held = new ArrayDeque<>(4);
            HELD.set(held);
        }
        held.addLast(handle);
    }

    static void pop(LockHandle handle) {
        Deque<LockHandle> held = HELD.get();
        if (held != null) {
            held.removeLastOccurrence(handle);
            if (held.isEmpty()) {
                HELD.remove();
            }
        }
    }

    static LockHandle innermost() {
        Deque<LockHandle> held = HELD.get();
        return (held != null) ? held.peekLast() : null;
    }

    static List<LockHandle> all() {
        Deque<LockHandle> held = HELD.get();
        return (held != null) ? List.copyOf(held) : List.of();
    }
}
