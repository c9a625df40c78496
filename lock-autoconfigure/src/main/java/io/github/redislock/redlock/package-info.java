/**
 * Redlock: one lock across several independent Redis masters, taken on a majority of them within its validity
 * time, with fencing tokens kept strictly increasing by a majority read and a majority write. A store
 * ({@code RedlockStore}) under the store-neutral engine ({@link io.github.redislock.engine.LockEngine}), which
 * gives it reentrancy and multi-key; only {@link RedlockClient} is public. What it shares with the single-Redis
 * store (key names, the scripts both run, the holder view, the instance registry) comes from
 * {@code io.github.redislock.redis.support}; its own {@code fence.lua} sits next to {@code RedlockNode}.
 */
@NullMarked
package io.github.redislock.redlock;

import org.jspecify.annotations.NullMarked;
