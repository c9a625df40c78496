package io.github.redislock.sample;

import java.net.URI;
import java.util.List;
import java.util.Map;

import io.github.redislock.sample.simulation.BuyerCrowd;
import io.github.redislock.sample.simulation.CrowdResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The control experiment: the same sale with {@code redis-lock.enabled=false} oversells. Without it, the locked
 * test could pass for the wrong reason (a sale that never races). The race is made wide on purpose, 50 ms of work
 * between read and write with 32 buyers released together, so that oversell is all but certain.
 */
@Timeout(60)
class UnlockedFlashSaleTest {

    private static final long SKU = 42;

    @RegisterExtension
    static final SampleOnRedis sale = SampleOnRedis.instances(2,
            Map.of("redis-lock.enabled", "false", "flash-sale.processing-time", "50ms"));

    @Test
    void twoInstancesOversellWithoutTheLock() throws InterruptedException {
        List<URI> uris = sale.uris();
        assertThat(SampleHttp.put(uris.get(0), "/skus/" + SKU + "/stock?quantity=10").statusCode()).isEqualTo(200);

        CrowdResult crowd = new BuyerCrowd(uris, 32).buy(SKU, 200);

        assertThat(crowd.unexpected()).as("requests answered other than 201/409/410").isZero();
        assertThat(crowd.count(201)).as("purchases answered 201").isGreaterThan(10);
        assertThat((Long) sale.redis().command("LLEN", "flash-sale:sku:" + SKU + ":orders")).as("orders in Redis")
                .isGreaterThan(10L);
    }
}
