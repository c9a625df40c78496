package io.github.redislock.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.github.redislock.sample.simulation.BuyerCrowd;
import io.github.redislock.sample.simulation.CrowdResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the lock, a crowd buying through two app instances (two application contexts, two Redis connection
 * factories, one Redis) gets exactly the stock: no more.
 */
@Timeout(60)
class LockedFlashSaleTest {

    private static final long SKU = 42;

    /** A wait long enough that nobody gives up: every buyer is then either served or told "sold out". */
    @RegisterExtension
    static final SampleOnRedis sale = SampleOnRedis.instances(2,
            Map.of("flash-sale.processing-time", "5ms", "flash-sale.lock-wait-time", "20s"));

    @Test
    void twoInstancesSellExactlyTheStock() throws InterruptedException {
        List<URI> uris = sale.uris();
        assertThat(SampleHttp.put(uris.get(0), "/skus/" + SKU + "/stock?quantity=10").statusCode()).isEqualTo(200);

        CrowdResult crowd = new BuyerCrowd(uris, 32).buy(SKU, 200);

        assertThat(crowd.count(201)).as("purchases answered 201").isEqualTo(10);
        assertThat(crowd.count(410)).as("buyers told 'sold out'").isEqualTo(190);
        HttpResponse<String> status = SampleHttp.get(uris.get(1), "/skus/" + SKU);
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat((Integer) JsonPath.read(status.body(), "$.orders")).isEqualTo(10);
        assertThat((Integer) JsonPath.read(status.body(), "$.stock")).isZero();
        assertThat((Integer) JsonPath.read(status.body(), "$.oversold")).isZero();
        // Straight from Redis, bypassing the app.
        assertThat(sale.redis().command("LLEN", "flash-sale:sku:" + SKU + ":orders")).isEqualTo(10L);
        assertThat(sale.redis().command("GET", "flash-sale:sku:" + SKU + ":stock")).isEqualTo("0");
    }
}
