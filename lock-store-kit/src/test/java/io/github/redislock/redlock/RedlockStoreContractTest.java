package io.github.redislock.redlock;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import io.github.redislock.storekit.LockStoreContract;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;

/**
 * Redlock proves the store contract over five independent masters, through Lettuce (calls on the shared connections,
 * none blocking a thread) and through Jedis (blocking calls on the store's threads).
 */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
class RedlockStoreContractTest extends LockStoreContract {

    /** Flushed (and their factories destroyed) after each check, after the kit closed its stores. */
    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(5);

    @Parameter
    ClientLibrary library;

    @Override
    protected StoreFixture fixture() {
        return new RedlockStoreFixture(masters, this.library);
    }
}
