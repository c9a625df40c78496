package io.github.redislock.engine;

/**
 * What a store says of one lock after {@link LockStore#extend}: extended, no longer held, or not known this tick.
 * Store SPI: see the package documentation.
 */
public enum Extension {

    /**
     * The store extended the lease: it now counts from when the extension was sent (the engine keeps it held
     * unless the answer came only after the old lease had run out by the local clock).
     */
    EXTENDED,

    /** The store answered that it no longer holds the lock: the engine marks it lost (detection RENEWAL). */
    NOT_HELD,

    /**
     * The store could not tell this tick (a node set without a majority of answers, a shard that timed out): the
     * engine asks again next tick, and the lock counts as held until its lease runs out by the local clock, when
     * it is lost (detection RENEWAL).
     */
    UNKNOWN
}
