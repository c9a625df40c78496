package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a store says about one key when asked now, whoever holds it: the answer of {@link LockStore#inspect}, the
 * same for every store. Read-only and advisory: the key may change hands the moment after it was read, so it
 * informs an operator and never decides who may enter. Store SPI (see the package documentation).
 * @param key the store's key, key prefix included
 * @param state who the key belongs to
 * @param holder the application instance that holds it, when {@code state} names an owner ({@link State#HELD},
 * {@link State#HANDED_OFF}); otherwise {@code null}
 * @param fencingToken the fencing token the store keeps with the key, when it keeps one ({@code null}: free, or
 * a value the store cannot read as one of its own)
 * @param since when the key was taken, as far as the store can tell ({@code null}: it cannot)
 * @param leaseRemaining how long until the key frees itself unless extended ({@code null}: free, no lease, or
 * the store does not know)
 * @param waiting how many applications queue for the key in the store ({@code null}: the store keeps no queue
 * or could not count it)
 * @param sharing how the key is in use: {@link Sharing#EXCLUSIVE} for a free or exclusively held key, else a read
 * lock or a semaphore of its permit count
 * @param holders every holder of the key, each with its fencing token and lease (one for an exclusive lock; several
 * for readers or a semaphore's permits, whose {@code holder}, {@code fencingToken}, {@code since} and
 * {@code leaseRemaining} above then describe the holder with the highest fencing token); empty when free
 */
public record LockInspection(String key, State state, @Nullable Holder holder, @Nullable Long fencingToken,
        @Nullable Instant since, @Nullable Duration leaseRemaining, @Nullable Integer waiting, Sharing sharing,
        List<Holding> holders) {

    /** An exclusive key: its one holder, if any, is the only one in {@link #holders()}. */
    public LockInspection(String key, State state, @Nullable Holder holder, @Nullable Long fencingToken,
            @Nullable Instant since, @Nullable Duration leaseRemaining, @Nullable Integer waiting) {
        this(key, state, holder, fencingToken, since, leaseRemaining, waiting, Sharing.EXCLUSIVE,
                (holder != null) ? List.of(new Holding(holder, fencingToken, leaseRemaining)) : List.of());
    }

    public LockInspection {
        holders = List.copyOf(holders);
    }

    /** A key nobody holds. */
    public static LockInspection free(String key, @Nullable Integer waiting) {
        return new LockInspection(key, State.FREE, null, null, null, null, waiting);
    }

    /** Whether anyone holds the key, so that an attempt to take it now would not succeed at once. */
    public boolean held() {
        return this.state != State.FREE;
    }

    /**
     * One holder of a key.
     * @param holder the application instance that holds it
     * @param fencingToken its fencing token ({@code null}: a value the store cannot read as one of its own)
     * @param leaseRemaining how long until its lease runs out unless extended ({@code null}: no lease, or unknown)
     */
    public record Holding(Holder holder, @Nullable Long fencingToken, @Nullable Duration leaseRemaining) {
    }

    /** Who a key belongs to, as the store sees it. */
    public enum State {

        /** Nobody holds it. */
        FREE,

        /** An acquisition holds it. */
        HELD,

        /** A release handed it to a waiting application, which has not yet taken it over. */
        HANDED_OFF,

        /** Owned by nobody until its holder's holdAtLeast has passed; then free. */
        KEPT,

        /**
         * Taken, but by a value this library did not write (another client on the same key) or cannot read;
         * for a store of several nodes, also when no value is on a majority of them.
         */
        OTHER
    }

    /**
     * The application instance behind an owner, from the store's instance registry.
     * @param known whether the registry knows the owner (false: an instance that stopped refreshing its entry, a
     * crashed one, or another version of the library; the other fields are then {@code null})
     * @param application that instance's {@code spring.application.name}
     * @param instance the id its process drew at start-up
     * @param host its host name
     * @param pid its process id
     */
    public record Holder(boolean known, @Nullable String application, @Nullable String instance,
            @Nullable String host, @Nullable Long pid) {

        /** An owner the registry does not know. */
        public static final Holder UNKNOWN = new Holder(false, null, null, null, null);

        /** A known instance. */
        public static Holder of(InstanceInfo instance) {
            return new Holder(true, instance.application(), instance.id(), instance.host(), instance.pid());
        }
    }
}
