package io.github.redislock.redlock;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.storekit.LockStoreContract;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.RedlockMasters;

/** Redlock proves the store contract over five independent masters. */
class RedlockStoreContractTest extends LockStoreContract {

    /** Flushed (and their factories destroyed) after each check, after the kit closed its stores. */
    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(5);

    @Override
    protected StoreFixture fixture() {
        return new RedlockStoreFixture(masters);
    }
}
