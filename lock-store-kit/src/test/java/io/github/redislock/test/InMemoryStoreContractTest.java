package io.github.redislock.test;

import io.github.redislock.storekit.LockStoreContract;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.LineIndependent;

/** lock-test's in-memory store ({@link InMemoryLockStore}) proves the store contract. */
@LineIndependent
class InMemoryStoreContractTest extends LockStoreContract {

    @Override
    protected StoreFixture fixture() {
        return new InMemoryStoreFixture();
    }
}
