/**
 * The single-Redis store: {@code RedisLockStore} (public: a {@code LockStore} with its settings and its lifecycle
 * as a bean) under the store-neutral {@code io.github.redislock.engine.LockEngine}; {@code RedisLockClient} is
 * that engine built in one constructor call. {@code RedisStoreParts} builds the store's Redis parts and wires them
 * to each other, each with one job and the only owner of its state:
 * <ul>
 * <li>{@code RedisLockProtocol} (behind the {@code LockProtocol} seam): the Lua scripts, their arguments and
 * typed replies, over {@code LockCommands} (Boot's shared Lettuce connection or a
 * {@code StringRedisTemplate}); {@code LockKey} names what is stored where, with {@code LockValue} and
 * {@code KeySlots} of {@code io.github.redislock.redis.support}, which also holds the scripts, their loader, the
 * holder view and the instance registry this store shares with Redlock;</li>
 * <li>{@code Waiting}: a waiting thread's steps (its Javadoc has the state machine), over {@code Lines} (one
 * {@code Line} of waiting threads per key), {@code QueueExit} (leaving a key's Redis queue; hand-offs received
 * and passed on), {@code LocalHandover} (passing a lock to a thread here), {@code Releases} and
 * {@code TimedLooks}; hearing releases through {@code HandoffChannel};</li>
 * <li>{@code ShareWaiting} over {@code ShareProtocol}: read locks and a semaphore's permits (shares), each waiting
 * share with its own place in the key's Redis queue, the key's holders in a sorted set beside it (the protocol's
 * Javadoc has the key's states);</li>
 * <li>{@code HeldLock}: what one lock (or share) holds in Redis (the store's {@code StoreLock});</li>
 * <li>{@code ReplicaAcknowledgement}: {@code WAIT} for replicas after each acquisition, when asked for;</li>
 * <li>{@code InstanceEntries}: this instance in the instance registry, from the store's start to its stop;</li>
 * <li>{@code ConnectionKind}: which client library and topology the connection factory has.</li>
 * </ul>
 * Reentrancy, multi-key, renewal scheduling, loss signalling, kept keys and the endpoint's snapshot are the
 * engine's.
 * <p>
 * holdAtLeast counts from this JVM's monotonic clock ({@link java.lang.System#nanoTime()}) at the moment the
 * reply that made the holder arrived (or the lock was passed to it here), not from Redis time: that moment is
 * after Redis took the key, and the keep that the release asks for is counted by Redis from when the release
 * runs, after it was sent, so the key stays at least the minimum after Redis took it (longer by about a round
 * trip). Redis time would need a read of the clock on every acquisition path (hand-offs and local hand-overs
 * carry fences that are not Redis time) and cannot be compared with the local clock anyway; only the two clocks'
 * rates must agree, as they must for leases.
 */
@NullMarked
package io.github.redislock.redis;

import org.jspecify.annotations.NullMarked;
