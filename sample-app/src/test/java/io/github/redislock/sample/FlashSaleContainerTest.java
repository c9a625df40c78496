package io.github.redislock.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import io.github.redislock.sample.containers.RedisContainerConfiguration;
import io.github.redislock.sample.containers.RequiresContainerEngine;
import io.github.redislock.sample.simulation.BuyerCrowd;
import io.github.redislock.sample.simulation.CrowdResult;
import io.github.redislock.test.AutoConfigureLockRecorder;
import io.github.redislock.test.LockRecorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.redislock.test.LockAssertions.assertThat;
import static io.github.redislock.test.LockAssertions.assertThatLock;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as users test theirs: the whole application on Redis in a container, connected by
 * {@code @ServiceConnection}, with real locks in that Redis. The app's own "start a local Redis" fallback is off.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "flash-sale.embedded-redis.enabled=false", "flash-sale.processing-time=2ms",
                "flash-sale.lock-wait-time=20s" })
@Import(RedisContainerConfiguration.class)
@RequiresContainerEngine
@AutoConfigureLockRecorder
@Timeout(120)
class FlashSaleContainerTest {

    private static final long SKU = 31;

    @LocalServerPort
    int port;

    @Autowired
    GenericContainer<?> redisContainer;

    @Autowired
    RedisConnectionFactory connectionFactory;

    @Autowired
    LockRecorder lockRecorder;

    @Test
    void aCrowdBuysExactlyTheStockUnderTheSkuLockInTheContainersRedis() throws InterruptedException {
        URI app = URI.create("http://localhost:" + this.port);
        assertThat(SampleHttp.put(app, "/skus/" + SKU + "/stock?quantity=5").statusCode()).isEqualTo(200);

        CrowdResult crowd = new BuyerCrowd(List.of(app), 8).buy(SKU, 40);

        assertThat(crowd.count(201)).as("purchases answered 201").isEqualTo(5);
        assertThat(crowd.count(410)).as("buyers told 'sold out'").isEqualTo(35);
        HttpResponse<String> status = SampleHttp.get(app, "/skus/" + SKU);
        assertThat((Integer) JsonPath.read(status.body(), "$.oversold")).isZero();
        assertThat(this.lockRecorder).ranUnder("sku:" + SKU + ":lock").holdsNothing();
        assertThatLock(this.connectionFactory, "flash-sale:sku:" + SKU + ":lock").isFree();
        // The data is in the container's Redis: read it through a connection of the test's own to that container.
        assertThat(stockInContainer()).isEqualTo("0");
    }

    private String stockInContainer() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                this.redisContainer.getHost(), this.redisContainer.getMappedPort(6379));
        factory.afterPropertiesSet();
        factory.start();
        try {
            return new StringRedisTemplate(factory).opsForValue().get("flash-sale:sku:" + SKU + ":stock");
        }
        finally {
            factory.destroy();
        }
    }
}
