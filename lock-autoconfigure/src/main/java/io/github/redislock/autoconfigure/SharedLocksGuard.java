package io.github.redislock.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.redislock.aop.LockOperationSource;
import io.github.redislock.aop.LockOperationSource.SharedDeclaration;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.Sharing;

/**
 * Fails the start-up when a locked method asks for a read lock or a semaphore that the application's store does not
 * keep (a store of exclusive locks only, such as a third-party store written before shared keys): every call of it
 * would otherwise fail. Checked once every singleton is instantiated, so every locked method of a singleton bean has
 * been parsed; a provider of the application's own that is no {@link LockEngine} is not asked (its calls decide).
 */
final class SharedLocksGuard implements SmartInitializingSingleton {

    private final LockOperationSource operations;

    private final ObjectProvider<LockEngine> engine;

    SharedLocksGuard(LockOperationSource operations, ObjectProvider<LockEngine> engine) {
        this.operations = operations;
        this.engine = engine;
    }

    @Override
    public void afterSingletonsInstantiated() {
        LockEngine locks = this.engine.getIfUnique();
        if (locks == null) {
            return;
        }
        for (SharedDeclaration declared : this.operations.sharedDeclarations()) {
            Sharing sharing = (declared.permits() > 1) ? Sharing.permits(declared.permits()) : Sharing.READ;
            if (!locks.supports(sharing)) {
                throw new LockConfigurationException(declared.method() + " asks for " + sharing.describe()
                        + ", but the lock store, " + locks.describe() + ", keeps exclusive locks only.",
                        "Use a store that keeps read locks and semaphores (one Redis, Redlock, ZooKeeper and the "
                                + "in-process store all do), or remove mode and permits from the annotation.");
            }
        }
    }
}
