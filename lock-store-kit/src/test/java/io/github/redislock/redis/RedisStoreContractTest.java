package io.github.redislock.redis;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import io.github.redislock.storekit.LockStoreContract;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;

/** The single-Redis store proves the store contract on one server, through Lettuce and through Jedis. */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
class RedisStoreContractTest extends LockStoreContract {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    @Parameter
    ClientLibrary library;

    @Override
    protected StoreFixture fixture() {
        return RedisStoreFixture.standalone(redis.server(), this.library);
    }
}
