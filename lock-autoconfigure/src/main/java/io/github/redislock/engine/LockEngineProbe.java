package io.github.redislock.engine;

/**
 * What the engine tells an observer about things only it and its store see: hand-offs taken over and failed
 * renewal rounds. Implemented by the library's Micrometer binding; a store reports its hand-offs through the one
 * {@link LockStore#observe} gives it. Store SPI (see the package documentation). Called on the engine's and the
 * store's own threads; must be quick,
 * must not block and must not throw. The defaults do nothing, which is what the engine uses when nothing
 * observes it.
 */
public interface LockEngineProbe {

    /** Observes nothing. */
    LockEngineProbe NONE = new LockEngineProbe() {
    };

    /**
     * A thread of this application got a lock that a release handed to it (rather than finding it free): taken
     * over in Redis from a release (the application's turn begins), or passed straight from another thread here
     * ({@code local}, within the turn).
     */
    default void takenOver(String key, boolean local) {
    }

    /**
     * A renewal round failed (Redis unreachable, timed out), or could not confirm some of its locks (a Redlock
     * majority out of reach for them): those locks were not extended.
     */
    default void renewalFailed(int locks, RuntimeException failure) {
    }
}
