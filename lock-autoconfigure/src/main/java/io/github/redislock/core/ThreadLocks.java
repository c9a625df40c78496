package io.github.redislock.core;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import io.github.redislock.LockHandle;

/**
 * The stack of locks guarding the work the current thread is doing, maintained by the front ends around the
 * guarded call and read by {@code LockContext} and the transaction commit check. Internal API.
 */
public final class ThreadLocks {

    private static final ThreadLocal<Deque<LockHandle>> HELD = new ThreadLocal<>();

    private ThreadLocks() {
    }

    public static void push(LockHandle handle) {
        Deque<LockHandle> held = HELD.get();
        if (held == null) {
            held = new ArrayDeque<>(4);
            HELD.set(held);
        }
        held.addLast(handle);
    }

    public static void pop(LockHandle handle) {
        Deque<LockHandle> held = HELD.get();
        if (held != null) {
            held.removeLastOccurrence(handle);
            if (held.isEmpty()) {
                HELD.remove();
            }
        }
    }

    public static LockHandle innermost() {
        Deque<LockHandle> held = HELD.get();
        return (held != null) ? held.peekLast() : null;
    }

    public static List<LockHandle> all() {
        Deque<LockHandle> held = HELD.get();
        return (held != null) ? List.copyOf(held) : List.of();
    }
}
