/**
 * The Redis lock engine. {@code RedisLockClient} (the public {@code LockProvider}) wires the parts, each with
 * one job and the only owner of its state:
 * <ul>
 * <li>{@code RedisLockProtocol} (behind the {@code LockProtocol} seam): the Lua scripts, their arguments and
 * typed replies, over {@code LockCommands} (Boot's shared Lettuce connection or a
 * {@code StringRedisTemplate}); {@code LockValue}, {@code LockKey} and {@code KeySlots} name what is
 * stored where;</li>
 * <li>{@code Waiting}: a waiting thread's steps (its Javadoc has the state machine), over {@code Lines} (one
 * {@code Line} of waiting threads per key), {@code QueueExit} (leaving a key's Redis queue; hand-offs received
 * and passed on), {@code LocalHandover} (passing a lock to a thread here), {@code Releases} and
 * {@code TimedLooks}; hearing releases through {@code HandoffChannel};</li>
 * <li>{@code LeaseRenewer}: batched renewal; {@code LossSignal}: a lost lock is never silent;</li>
 * <li>{@code HeldLock} and the handles: what one acquisition holds, and reentrancy;</li>
 * <li>{@code ConnectionKind}: which client library and topology the connection factory has.</li>
 * </ul>
 * Besides {@code RedisLockClient} and {@code LockLossListener}, two public types serve observability only:
 * {@code LockEngineState}, the read-only snapshot behind the Actuator endpoint and gauges, and
 * {@code LockEngineProbe}, told of hand-offs taken over and failed renewal rounds (a no-op unless metrics
 * are bound).
 */
@NullMarked
package io.github.redislock.core;

import org.jspecify.annotations.NullMarked;
