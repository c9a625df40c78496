/**
 * Redlock: one lock across several independent Redis masters, taken on a majority of them within its validity
 * time, with fencing tokens kept strictly increasing by a majority read and a majority write. A store
 * ({@code RedlockStore}) under the store-neutral engine ({@link io.github.redislock.engine.LockEngine}), which
 * gives it reentrancy and multi-key; only {@link RedlockClient} is public.
 */
@NullMarked
package io.github.redislock.redlock;

import org.jspecify.annotations.NullMarked;
