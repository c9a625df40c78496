/**
 * The store-neutral lock engine: what every lock needs whatever store holds it, written once. {@link LockEngine}
 * (a {@link io.github.redislock.LockProvider}) owns reentrancy, multi-key ordering and all-or-nothing, the
 * interrupt check, holdAtLeast across nested acquisitions and the kept keys, renewal scheduling (one batched
 * extension per tick), loss detection and signalling ({@link LockLossListener}), {@code isHeld()} by the local
 * clock, and the endpoint's snapshot ({@link LockEngineState}). A {@link LockStore} takes, extends, checks and
 * releases keys, waiting for a taken key as it waits; its {@link StoreLock}s carry what the store keeps. The
 * single Redis ({@code io.github.redislock.redis}) and Redlock ({@code io.github.redislock.redlock}) are stores
 * under it.
 */
@NullMarked
package io.github.redislock.engine;

import org.jspecify.annotations.NullMarked;
