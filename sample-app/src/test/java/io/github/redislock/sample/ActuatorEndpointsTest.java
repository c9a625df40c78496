package io.github.redislock.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.redislock.sample.simulation.AppInstances;
import io.github.redislock.testsupport.TaskThreads;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's Actuator endpoints as an operator calls them during a sale: one instance ("flash-sale-east", its
 * purchases slow) sells while the other's endpoint ("flash-sale-west") names it as the holder of the SKU's lock;
 * health and the Prometheus meters answer.
 */
class ActuatorEndpointsTest {

    /** East: a purchase holds the lock this long, long enough to look at the holder while it does. */
    @RegisterExtension
    static final SampleOnRedis sale = SampleOnRedis.instances(1,
            Map.of("spring.application.name", "flash-sale-east", "flash-sale.processing-time", "3000ms"));

    private static AppInstances east;

    private static AppInstances west;

    @BeforeAll
    static void west() {
        east = sale.instances();
        west = sale.more(1, Map.of("spring.application.name", "flash-sale-west"));
    }

    @Test
    void theOtherInstanceNamesTheHolderWhileAPurchaseRuns() throws Exception {
        URI eastUri = east.baseUris().get(0);
        URI westUri = west.baseUris().get(0);
        assertThat(SampleHttp.put(westUri, "/skus/42/stock?quantity=3").statusCode()).isEqualTo(200);

        CompletableFuture<HttpResponse<String>> purchase = CompletableFuture
            .supplyAsync(() -> SampleHttp.post(eastUri, "/skus/42/purchase"), TaskThreads.own());
        await().atMost(Duration.ofSeconds(10)).until(() -> holderView(westUri).read("$.held", Boolean.class));
        DocumentContext view = holderView(westUri);
        assertThat(view.read("$.key", String.class)).isEqualTo("flash-sale:sku:42:lock");
        assertThat(view.read("$.state", String.class)).isEqualTo("HELD");
        // Its registry entry is written at start-up, on a thread of its own: long done by now, or very soon.
        await().atMost(Duration.ofSeconds(10)).until(() -> holderView(westUri).read("$.holder.known", Boolean.class));
        view = holderView(westUri);
        assertThat(view.read("$.holder.application", String.class)).isEqualTo("flash-sale-east");
        assertThat(view.read("$.holder.pid", Long.class)).isEqualTo(ProcessHandle.current().pid());
        assertThat(view.read("$.fencingToken", Long.class)).isPositive();
        assertThat(Duration.parse(view.read("$.leaseRemaining", String.class))).isPositive()
            .isLessThanOrEqualTo(Duration.ofSeconds(5));

        assertThat(purchase.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(holderView(westUri).read("$.state", String.class)).isEqualTo("FREE");
    }

    @Test
    void healthAndThePrometheusMetersAnswer() {
        URI westUri = west.baseUris().get(0);
        assertThat(SampleHttp.put(westUri, "/skus/7/stock?quantity=1").statusCode()).isEqualTo(200);
        assertThat(SampleHttp.post(westUri, "/skus/7/purchase").statusCode()).isEqualTo(201);

        HttpResponse<String> health = SampleHttp.get(westUri, "/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(health.body(), "$.status")).isEqualTo("UP");

        HttpResponse<String> locks = SampleHttp.get(westUri, "/actuator/redislocks");
        assertThat(locks.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(locks.body(), "$.renewal.status")).isEqualTo("OK");

        HttpResponse<String> prometheus = SampleHttp.get(westUri, "/actuator/prometheus");
        assertThat(prometheus.statusCode()).isEqualTo(200);
        assertThat(prometheus.body()).contains("redis_lock_acquire_seconds_count{", "redis_lock_acquire_seconds_bucket{",
                "redis_lock_hold_seconds_bucket{", "redis_lock_held ", "redis_lock_waiting ",
                "redis_lock_lost_total{", "redis_lock_renewal_failures_total ", "redis_lock_handoffs_total{");
    }

    private static DocumentContext holderView(URI base) {
        HttpResponse<String> response = SampleHttp.get(base, "/actuator/redislocks/sku:42:lock");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JsonPath.parse(response.body());
    }
}
