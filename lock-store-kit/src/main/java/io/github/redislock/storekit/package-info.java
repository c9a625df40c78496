/**
 * The store conformance kit: {@link io.github.redislock.storekit.LockStoreContract}, one abstract JUnit 5 suite
 * that every lock store runs (each of this library's, and any other written against the store SPI in
 * {@code io.github.redislock.engine}), given a {@link io.github.redislock.storekit.StoreFixture} for the store.
 */
@NullMarked
package io.github.redislock.storekit;

import org.jspecify.annotations.NullMarked;
