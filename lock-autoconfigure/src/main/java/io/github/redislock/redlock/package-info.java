/**
 * Redlock: one lock across several independent Redis masters, taken on a majority of them within its validity
 * time, with fencing tokens kept strictly increasing by a majority read and a majority write. An engine of its
 * own behind the same {@link io.github.redislock.LockProvider} SPI; only {@link RedlockClient} is public.
 */
@NullMarked
package io.github.redislock.redlock;

import org.jspecify.annotations.NullMarked;
