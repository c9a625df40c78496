package io.github.redislock.redis.support;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockTokens;

/**
 * The one place that knows what a lock key holds: {@code <owner>:<fence>}, where the owner is the holding
 * acquisition's random token, or the id of the application a release handed the lock to, and the fence is
 * the fencing token in decimal. Tokens and client ids are URL-safe Base64 and never contain a colon.
 */
public final class LockValue {

    private LockValue() {
    }

    /** The value a holder stores. */
    public static String of(String owner, long fence) {
        return owner + ':' + fence;
    }

    /**
     * What the release script matches against any fence of the owner: an acquire whose reply never arrived,
     * or a hand-off to an application that no longer waits.
     */
    public static String anyFenceOf(String owner) {
        return owner + ':';
    }

    /** Longest value {@link #read} looks at: ours are at most 22 + 1 + 13 + 1 + 19 characters. */
    static final int MAX_READ = 128;

    /** A random id's length: 128 bits in URL-safe Base64 without padding ({@link io.github.redislock.engine.LockTokens#randomId}). */
    static final int ID_LENGTH = LockTokens.ID_LENGTH;

    /**
     * A value read back from a lock key, checked for the forms this library writes and nothing else (another
     * client may have written anything): an owner is named only by a well-formed random id, never by other
     * text.
     * @param value the value, or its first {@link #MAX_READ} characters; {@code null}: no key
     */
    static Read read(@Nullable String value) {
        if (value == null) {
            return new Read(State.FREE, null, null);
        }
        int colon = value.indexOf(':');
        Long fence = (colon < 0) ? null : fence(value, colon + 1);
        if (fence == null) {
            return new Read(State.OTHER, null, null);
        }
        if (colon == 1 && value.charAt(0) == '~') {
            return new Read(State.FREE, null, fence);
        }
        if (value.startsWith("~kept:")) {
            return new Read(State.KEPT, null, fence);
        }
        if (colon < ID_LENGTH || !isId(value, 0, ID_LENGTH)) {
            return new Read(State.OTHER, null, fence);
        }
        String id = value.substring(0, ID_LENGTH);
        if (colon == ID_LENGTH) {
            // A release handed the lock to the application with this client id.
            return new Read(State.HANDED_OFF, id, fence);
        }
        // <id>.<sequence in base 36>: a token of the client whose tokens begin with this id.
        int sequence = colon - ID_LENGTH - 1;
        boolean token = value.charAt(ID_LENGTH) == '.' && sequence >= 1 && sequence <= 13
                && isBase36(value, ID_LENGTH + 1, colon);
        return token ? new Read(State.HELD, id, fence) : new Read(State.OTHER, null, fence);
    }

    /** The decimal fence from {@code from} to the end, or {@code null} unless 1 to 18 digits. */
    private static @Nullable Long fence(String value, int from) {
        int digits = value.length() - from;
        if (digits < 1 || digits > 18) {
            return null;
        }
        for (int i = from; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                return null;
            }
        }
        return Long.parseLong(value, from, value.length(), 10);
    }

    /** Whether the characters are URL-safe Base64, as {@link io.github.redislock.engine.LockTokens#randomId} draws them. */
    static boolean isId(String text, int from, int to) {
        return LockTokens.isId(text, from, to);
    }

    private static boolean isBase36(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * A value checked by {@link #read}.
     * @param state what the value says about the key
     * @param ownerId the random id that begins the owner ({@link State#HELD}: the holder's token prefix;
     * {@link State#HANDED_OFF}: the client id), else {@code null}
     * @param fence the fencing token, when the value carries a well-formed one
     */
    record Read(State state, @Nullable String ownerId, @Nullable Long fence) {

        /** The same with another fence (a store that keeps the fencing token apart from the value). */
        Read withFence(@Nullable Long fence) {
            return new Read(this.state, this.ownerId, fence);
        }

        /** Earliest time a fence is read as: fences drawn from a clock count microseconds since 1970. */
        private static final long EARLIEST_MICROS = TimeUnit.SECONDS.toMicros(1_577_836_800L); // 2020-01-01

        /**
         * When the fence was drawn, for a store that draws fences from its clock in microseconds (Redis time;
         * a local hand-over or a floor adds one per holder, a microsecond each); {@code null} when the fence is no
         * plausible time (absent, before 2020, or more than a day ahead of this clock).
         */
        @Nullable Instant since(Instant now) {
            if (this.fence == null || this.fence < EARLIEST_MICROS) {
                return null;
            }
            Instant since = Instant.EPOCH.plusNanos(TimeUnit.MICROSECONDS.toNanos(this.fence));
            return since.isAfter(now.plusSeconds(86_400)) ? null : since;
        }
    }
}
