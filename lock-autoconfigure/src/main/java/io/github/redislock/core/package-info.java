/**
 * The Redis lock engine. {@code RedisLockClient} (the public {@code LockProvider}) wires the parts, each with
 * one job and the only owner of its state:
 * <ul>
 * <li>{@code RedisLockProtocol} (behind the {@code LockProtocol} seam): the Lua scripts, their arguments and
 * typed replies, over {@code LockCommands} (Boot's shared Lettuce connection or a
 * {@code StringRedisTemplate}); {@code LockValue}, {@code LockKey} and {@code KeySlots} name what is
 * stored where;</li>
 * <li>{@code Waiting} with its {@code Line}s: attempts, waiting threads, the application's place in a key's
 * Redis queue, and hand-offs (its Javadoc has the state machine), hearing releases through
 * {@code HandoffChannel};</li>
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
