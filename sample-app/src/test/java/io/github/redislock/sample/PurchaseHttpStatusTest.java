package io.github.redislock.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** What a client sees at each step of a sale: 404, 200, 409 while the lock is held elsewhere, 201, 410. */
class PurchaseHttpStatusTest {

    @RegisterExtension
    static final SampleOnRedis sale = SampleOnRedis.instances(1,
            Map.of("flash-sale.processing-time", "0ms", "flash-sale.lock-wait-time", "100ms"));

    private static URI app;

    private static RedisServer redis;

    @BeforeAll
    static void app() {
        app = sale.uris().get(0);
        redis = sale.redis();
    }

    @Test
    void saleOfOneItem() {
        assertThat(SampleHttp.post(app, "/skus/7/purchase").statusCode()).as("never stocked").isEqualTo(404);
        assertThat(SampleHttp.get(app, "/skus/7").statusCode()).isEqualTo(404);

        HttpResponse<String> stocked = SampleHttp.put(app, "/skus/7/stock?quantity=1");
        assertThat(stocked.statusCode()).isEqualTo(200);
        assertThat((Integer) JsonPath.read(stocked.body(), "$.stock")).isEqualTo(1);

        // Someone else (another instance, say) holds the SKU's lock: the key carries redis-lock.key-prefix.
        assertThat(redis.command("SET", "flash-sale:sku:7:lock", "held-by-the-test", "PX", "60000")).isEqualTo("OK");
        HttpResponse<String> busy = SampleHttp.post(app, "/skus/7/purchase");
        assertThat(busy.statusCode()).isEqualTo(409);
        assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
        assertThat((String) JsonPath.read(busy.body(), "$.title")).isEqualTo("Busy");
        assertThat(redis.command("GET", "flash-sale:sku:7:stock")).as("nothing bought while busy").isEqualTo("1");

        redis.command("DEL", "flash-sale:sku:7:lock");
        HttpResponse<String> bought = SampleHttp.post(app, "/skus/7/purchase");
        assertThat(bought.statusCode()).isEqualTo(201);
        assertThat((Integer) JsonPath.read(bought.body(), "$.stockLeft")).isZero();
        assertThat((String) JsonPath.read(bought.body(), "$.servedBy")).isEqualTo("instance-1");
        // Released: the key is gone.
        assertThat(redis.command("EXISTS", "flash-sale:sku:7:lock")).as("lock released").isEqualTo(0L);

        HttpResponse<String> soldOut = SampleHttp.post(app, "/skus/7/purchase");
        assertThat(soldOut.statusCode()).isEqualTo(410);
        assertThat((String) JsonPath.read(soldOut.body(), "$.title")).isEqualTo("Sold out");

        HttpResponse<String> status = SampleHttp.get(app, "/skus/7");
        assertThat((Integer) JsonPath.read(status.body(), "$.orders")).isEqualTo(1);
        assertThat((Integer) JsonPath.read(status.body(), "$.stock")).isZero();
    }

    @Test
    void negativeQuantityIsRejected() {
        assertThat(SampleHttp.put(app, "/skus/8/stock?quantity=-1").statusCode()).isEqualTo(400);
    }
}
