package io.github.redislock.engine;

import io.github.redislock.LockLossDetection;

/** Where a {@link LockStore} reports a loss it notices by itself; the engine marks and signals it. Store SPI. */
@FunctionalInterface
public interface StoreListener {

    /**
     * The store no longer holds this lock. Called on the store's thread; returns quickly. A lock the engine does
     * not hold (released meanwhile) is ignored.
     */
    void lost(StoreLock lock, LockLossDetection how);
}
