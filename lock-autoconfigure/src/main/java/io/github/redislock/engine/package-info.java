/**
 * The store-neutral lock engine: what every lock needs whatever store holds it, written once. {@link LockEngine}
 * (a {@link io.github.redislock.LockProvider}) owns reentrancy, multi-key ordering and all-or-nothing, the
 * interrupt check, holdAtLeast across nested acquisitions and {@link io.github.redislock.LockNotAcquiredException};
 * a {@link LockStore} takes and releases one key (its waiting, renewal and loss signalling stay its own for
 * now). Redlock ({@code io.github.redislock.redlock}) is a store under it.
 */
@NullMarked
package io.github.redislock.engine;

import org.jspecify.annotations.NullMarked;
