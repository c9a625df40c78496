package io.github.redislock.redlock;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one attempt found on one node: the value stored when acquired (a share's entry), the fencing counter (as
 * a write lock's take raised it; as a share's take read it), the node's clock in microseconds when it took the
 * key, and a permit's slot (-1 for none; -2 not taken because readers hold the key); or, the key in use with
 * another permit count, that count (0 a read lock, 1 a write lock, N a semaphore of N; -1 for none).
 */
record Taken(@Nullable String value, long counter, long clock, int slot, long mismatch) {

    static final Taken NONE = new Taken(null, 0, 0, -1, -1);

    /** Not taken: readers hold the key on this node. */
    static final Taken READERS = new Taken(null, 0, 0, -2, -1);

    Taken(@Nullable String value, long counter, long clock, int slot) {
        this(value, counter, clock, slot, -1);
    }

    static Taken mismatch(long permits) {
        return new Taken(null, 0, 0, -1, permits);
    }

    boolean acquired() {
        return this.value != null;
    }

    /** Not taken because readers hold the key here: a writer then waits with a place in the queue. */
    boolean readers() {
        return this == READERS;
    }

    /**
     * acquire.lua's reply: 1 free, 2 taken over (the value holds the token with that fence; then the counter as the
     * take raised it), 3 a semaphore's, 0 taken (with a third element: by readers).
     */
    static Taken ofAcquisition(String token, @Nullable List<?> reply) {
        long status = (reply != null) ? ((Number) reply.get(0)).longValue() : 0;
        if (status == 3) {
            return Taken.mismatch(((Number) reply.get(1)).longValue());
        }
        if (status != 1L && status != 2L) {
            return (reply != null && reply.size() > 2) ? Taken.READERS : Taken.NONE;
        }
        long clock = ((Number) reply.get(1)).longValue();
        return new Taken(token + ':' + clock, counter(text(reply.get(2))), clock, -1);
    }

    /** A bulk string of a script's reply: bytes on Lettuce's connection, a string through the template. */
    private static @Nullable String text(@Nullable Object element) {
        return (element instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8)
                : (element != null) ? element.toString() : null;
    }

    /** share.lua's reply to a take (status 4, a key of another type, is the caller's): see {@link #ofAcquisition}. */
    static Taken ofShare(String token, @Nullable List<?> reply, @Nullable String counter) {
        long status = (reply != null) ? ((Number) reply.get(0)).longValue() : 0;
        if (status == 3) {
            return Taken.mismatch(((Number) reply.get(1)).longValue());
        }
        if (status != 1L && status != 2L) {
            return Taken.NONE;
        }
        long clock = ((Number) reply.get(1)).longValue();
        String entry = ((reply.size() > 2) ? ((Number) reply.get(2)).longValue() + "/" : "") + token + ':' + clock;
        return new Taken(entry, counter(counter), clock, (reply.size() > 2) ? ((Number) reply.get(2)).intValue() : -1);
    }

    /** A counter as read back: anything but a non-negative number (another client wrote it) counts as none. */
    private static long counter(@Nullable String stored) {
        if (stored == null || stored.isEmpty()) {
            // No counter yet (acquire.lua says so with ''): the common case of a key's first lock, without the
            // exception a parse would throw.
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(stored));
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }
}
