package io.github.redislock.modelcheck;

/** One step of a stateful property: what an application, the store or time does next. */
public sealed interface Action {

    /**
     * The application takes the key (wait 0), renewed or with a fixed lease, as a write lock or a read lock; again,
     * nested, if it holds it (a write lock admits nested reads; a write inside a read, an upgrade, is refused).
     */
    record Take(int app, boolean fixedLease, boolean read) implements Action {
    }

    /** The application ends its innermost acquisition. */
    record Release(int app) implements Action {
    }

    /** The backend forgets the key and everything it keeps with it (its holders, its queue), as a restart would. */
    record Forget() implements Action {
    }

    /** The application's renewal scheduler runs one round. */
    record Renew(int app) implements Action {
    }

    /** Time passes: the properties sleep, the leases run. */
    record Wait(long millis) implements Action {
    }

    /** The store's answer to the application's next take comes this late, after the key was taken. */
    record AnswerLate(int app, long millis) implements Action {
    }
}
