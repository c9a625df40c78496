/**
 * The store-neutral lock engine: what every lock needs whatever store holds it, written once. {@link LockEngine}
 * (a {@link io.github.redislock.LockProvider}) owns reentrancy, multi-key ordering and all-or-nothing, the
 * interrupt check, holdAtLeast across nested acquisitions and the kept keys, renewal scheduling (one batched
 * extension per tick), loss detection and signalling ({@link LockLossListener}), {@code isHeld()} by the local
 * clock, and the endpoint's snapshot ({@link LockEngineState}). A {@link LockStore} takes, extends, checks and
 * releases keys, waiting for a taken key as it waits; its {@link StoreLock}s carry what the store keeps. The
 * single Redis ({@code io.github.redislock.redis}), Redlock ({@code io.github.redislock.redlock}), ZooKeeper
 * ({@code redis-lock-zookeeper}) and lock-test's in-memory store are stores under it.
 * <h2>The store SPI</h2>
 * Every public type of this package is the store SPI, supported for stores written outside this library:
 * {@link LockStore}, {@link StoreLock}, {@link StoreListener}, {@link Extension}, {@link LockInspection},
 * {@link InstanceInfo} and {@link LockTokens} (what a store implements and uses), {@link LockEngine}'s
 * constructors and public methods, {@link LockLossListener}, {@link LockEngineState} and {@link LockEngineProbe}
 * (what the engine over a store gives and is told). Everything else here is package-private and internal.
 * Versioning: the SPI changes only with a new minor version (a new major one from 1.0), each change listed in
 * {@code docs/upgrading.md}; a method added to an interface a store implements comes with a default, so that a
 * store written against an earlier version still compiles and runs. A store proves it keeps the contract by
 * passing the library's store conformance suite.
 */
@NullMarked
package io.github.redislock.engine;

import org.jspecify.annotations.NullMarked;
