package io.github.redislock.engine;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Where locks are kept: the store SPI under {@link LockEngine}. A store takes, extends, checks and releases one
 * key at a time (extensions in a batch); the engine decides everything that spans keys, acquisitions or time:
 * reentrancy, multi-key, holdAtLeast, when to renew, when a lock counts as lost and who is told. Each store
 * states its guarantees in its own Javadoc.
 * <p>
 * Store SPI, supported for third-party stores (see the package documentation): the stores of this library (one
 * Redis, Redlock, ZooKeeper, lock-test's in-memory store) implement nothing more. Methods added later come with
 * a default, so that a store written against an earlier version still compiles and runs. A store is closed once
 * by the engine over it ({@link LockEngine#close}) and, as a Spring bean, once more by its context: closing
 * again must do nothing.
 */
public interface LockStore extends AutoCloseable {

    /**
     * The store's key for a lock name: the key prefix added and the store's key rules checked, before anything
     * is sent.
     * @throws io.github.redislock.LockException if the name makes a key the store refuses
     */
    String key(String name);

    /**
     * Takes one key, waiting as the store waits (queues, retries, watches) until {@code deadlineNanos}
     * ({@link System#nanoTime()}; compare as {@code deadline - now}, the sum may have wrapped).
     * @param token the request's token: random, never used before by this engine, shared by the keys of one
     * request; the store keeps it (with its fence) as the holder's value, or mints its own where it needs one per
     * attempt (Redlock)
     * @param leaseMillis the lease of the lock (ignored by a store that is not {@link #leased()})
     * @param renewed whether the engine will keep the lease alive by {@link #extend} until the lock is released
     * @return the lock, or {@code null} when the key stayed taken by someone else until the deadline (nothing is
     * then held)
     * @throws io.github.redislock.LockException if the store fails or the thread is interrupted (nothing is then
     * held)
     */
    @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos);

    /**
     * Takes one key as {@code sharing} says: a write (exclusive) lock, a read lock, or one permit of a semaphore;
     * otherwise as {@link #take(String, String, long, boolean, long)}, which is this with {@link Sharing#EXCLUSIVE}.
     * The engine always calls this method. A store that keeps shared keys ({@link #supports}) promises, per key:
     * <ul>
     * <li>at most {@code permits} holders of a semaphore at once; readers together or one writer alone, never
     * both;</li>
     * <li>fair waiting: waiters are admitted in arrival order, within this application and across applications;
     * a reader that arrives while a writer waits queues behind the writer; hand-off by notification, not
     * polling;</li>
     * <li>every holder, whatever its kind, a fencing token greater than every earlier holder's of the key;</li>
     * <li>each holder a lease of its own (extended, verified and released one by one, compared by its token), so
     * a crashed holder's permit or read lock frees itself within one lease, with no sweeper;</li>
     * <li>a key held or awaited with another permit count ({@link Sharing#sharesKeyWith}) fails the take at once
     * with {@link Sharing#mismatch}, holding nothing.</li>
     * </ul>
     * The default takes exclusive locks only and refuses the rest with a {@link io.github.redislock.LockException}
     * naming the store.
     * @throws io.github.redislock.LockException as {@link #take(String, String, long, boolean, long)}, and for a
     * sharing the store does not support or a key in use with another permit count (nothing is then held)
     */
    default @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos,
            Sharing sharing) {
        if (sharing.isExclusive()) {
            return take(key, token, leaseMillis, renewed, deadlineNanos);
        }
        throw new io.github.redislock.LockException("Lock '" + key + "' asks for " + sharing.describe() + ", but "
                + describe() + " keeps exclusive locks only");
    }

    /**
     * Whether this store keeps keys shared this way ({@link #take(String, String, long, boolean, long, Sharing)});
     * the default: exclusive locks only.
     */
    default boolean supports(Sharing sharing) {
        return sharing.isExclusive();
    }

    /**
     * Whether locks expire unless extended (Redis, Redlock); false for a store whose locks last as long as its
     * session (ZooKeeper's ephemeral nodes), which the engine never extends and never counts out by its clock.
     */
    boolean leased();

    /**
     * How long after its lease started (the take's or extension's request was sent) a lock counts as held by
     * this JVM's clock: the lease by default; less for a store that leaves room for clock drift between its
     * nodes (Redlock: 1 % plus 2 ms less).
     */
    default long validNanos(long leaseMillis) {
        return TimeUnit.MILLISECONDS.toNanos(leaseMillis);
    }

    /**
     * Extends the leases of these held, renewed locks to {@code leaseMillis}, in as few round trips as the store
     * can. The engine calls it once per tick, every third of the lease, with every renewed lock it holds whose
     * lease has not run out by the local clock; a lock whose release is on its way may still be among them, and
     * must be left alone by a compare-and-extend. A holder's extension ({@link io.github.redislock.LockHandle#extend})
     * comes through here too, with a fixed lease; the engine sends it only after the renewal round under way has
     * returned, and the store must apply a lock's extensions in the order it was called with them, calls of an
     * earlier one still on their way included (Redlock returns once a majority answered: its calls to the slow
     * nodes go first there), or a late renewal would give the key the renewed lease back.
     * @return per lock, in order: {@link Extension#EXTENDED} (its lease now counts from when this call began,
     * unless this call returned only after the lease had run out by the local clock: the engine then marks it
     * lost), {@link Extension#NOT_HELD} when the store no longer holds it (the engine marks it lost, detection
     * RENEWAL), or {@link Extension#UNKNOWN} when the store could not tell for this lock this time (the engine
     * asks again next tick; the other locks' answers stand)
     * @throws io.github.redislock.LockException if the store could not be asked at all: every lock is then
     * {@link Extension#UNKNOWN} for this tick. An unknown lock counts as held until its lease runs out by the
     * local clock; a lock whose lease runs out before a round confirms its extension is lost (detection RENEWAL),
     * and not offered to this method again
     */
    Extension[] extend(List<StoreLock> locks, long leaseMillis);

    /**
     * Called once by the engine, before any take: where the store reports a loss it notices by itself (a
     * ZooKeeper session expired; a Redis lock passed on within the application found not ours).
     */
    void listen(StoreListener listener);

    /**
     * One line for the start-up log and the endpoint, such as "Redis standalone 127.0.0.1:6379 (Lettuce)" or
     * "Redlock over 5 masters".
     */
    String describe();

    /** Local waiting, per key: how many threads of this application wait in the store now (default: none). */
    default Map<String, Integer> waiting() {
        return Map.of();
    }

    /**
     * Stops the store's own threads and connections, and removes this instance from the store's instance registry;
     * locks still held then end as the store's locks end. Closing again does nothing.
     */
    @Override
    void close();

    /**
     * Names this instance in the store's instance registry, so that {@link #inspect} in any application can name
     * the holder of a key this instance holds. Called once, before any take, by whoever builds the engine (the
     * auto-configuration, with the application's {@link InstanceInfo} bean; {@link LockEngine#publishInstance}).
     * The store writes the entry when it is ready to (at once, or when its lifecycle starts), keeps it alive as
     * long as the instance runs (a TTL refreshed, an ephemeral node) and removes it at {@link #close} at the
     * latest. The default keeps no registry: every holder is then unknown to {@link #inspect}.
     * @param self this instance
     * @param ownerId the random id that begins the tokens of the engine over this store
     * ({@link LockEngine#ownerId}, {@link LockTokens#idOf}); a store that writes ids of its own in its values
     * (Redis hand-offs, Redlock's attempts) registers those too, or instead
     */
    default void publishInstance(InstanceInfo self, String ownerId) {
    }

    /**
     * Where the store tells what only it sees (a lock taken over from a hand-off) to the library's meters; called
     * when meters are bound to the engine. The default reports nothing.
     */
    default void observe(LockEngineProbe probe) {
    }

    /**
     * Reads the store now and says who holds the key, whichever application that is: the cluster-wide holder
     * view behind {@code GET /actuator/redislocks/{key}}. The contract, for every store:
     * <ul>
     * <li>Read-only, and nothing on the hot path: the holder is named from what the store already keeps for the
     * lock (for Redis, the owner part of the key's value), looked up in an instance registry that each instance
     * writes when it starts, refreshes well within a TTL (or an ephemeral lifetime) and removes when it stops, so
     * that the entries of dead instances vanish by themselves. Taking and releasing locks writes nothing more.</li>
     * <li>An owner the registry does not know (a crashed instance whose entry expired, another version of the
     * library, a value some other client wrote) is {@link LockInspection.Holder#UNKNOWN}, never an error.
     * Whatever is read back is checked for the store's own forms before it names anything (another client may
     * have written anything), and registry names are derived only from such checked values, in the library's
     * reserved namespace, never from the caller's text.</li>
     * <li>A store of several nodes answers what a majority says; when no state has a majority, the key is
     * {@link LockInspection.State#OTHER}.</li>
     * <li>{@code waiting} counts applications queued in the store when it keeps a queue, else {@code null}.</li>
     * </ul>
     * The default answers {@code OTHER} with nothing known, for a store that cannot tell.
     * @param key the store's key ({@link #key})
     * @throws io.github.redislock.LockException if the store (or, for several nodes, a majority) cannot be reached
     */
    default LockInspection inspect(String key) {
        return new LockInspection(key, LockInspection.State.OTHER, null, null, null, null, null);
    }
}
