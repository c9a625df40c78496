package io.github.redislock.zookeeper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.ZooKeeperServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code GET /actuator/redislocks/{key}} on ZooKeeper as an operator calls it, through a real web server: the
 * "reports" application's endpoint names the "orders" application (its own session) as the holder of a key, with
 * the lock node's zxid as the fencing token and no lease; a name the store refuses is a 400, and the endpoint's
 * settings (exposure, access, show-keys) apply as on Redis.
 */
class ZooKeeperHolderViewWebTest {

    private static ZooKeeperServer server;

    private final HttpClient http = HttpClient.newHttpClient();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = new ZooKeeperServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeApplications() {
        Collections.reverse(this.contexts);
        this.contexts.forEach(ConfigurableApplicationContext::close);
    }

    /** An application on the ZooKeeper server, with a web server on a free loopback port. */
    private ConfigurableApplicationContext application(String name, String... properties) {
        List<String> all = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
                "spring.main.banner-mode=off", "spring.application.name=" + name,
                "redis-lock.zookeeper.connect-string=" + server.connectString(), "redis-lock.zookeeper.base-path=/web",
                "management.endpoints.web.exposure.include=redislocks",
                "management.endpoint.redislocks.show-keys=always"));
        all.addAll(List.of(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.SERVLET)
            .properties(all.toArray(String[]::new))
            .run();
        this.contexts.add(context);
        return context;
    }

    private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
        // The port the web server took, as Boot publishes it (the same property on every Boot line).
        String port = context.getEnvironment().getRequiredProperty("local.server.port");
        URI uri = URI.create("http://127.0.0.1:" + port + "/actuator/redislocks/" + path);
        return this.http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private DocumentContext view(ConfigurableApplicationContext context, String key) throws Exception {
        HttpResponse<String> response = get(context, key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JsonPath.parse(response.body());
    }

    private static LockHandle hold(ConfigurableApplicationContext context, String name) {
        return context.getBean(DistributedLockTemplate.class).acquire(LockRequest.of(name, Duration.ZERO, null));
    }

    @Test
    void anotherApplicationsEndpointNamesTheHolder() throws Exception {
        ConfigurableApplicationContext orders = application("orders");
        ConfigurableApplicationContext reports = application("reports");
        try (LockHandle lock = hold(orders, "job:report")) {
            // Its registry node is written in the background at start-up.
            await().atMost(Duration.ofSeconds(10))
                .until(() -> view(reports, "job:report").read("$.holder.known", Boolean.class));
            DocumentContext view = view(reports, "job:report");
            assertThat(view.read("$.key", String.class)).isEqualTo("/web/job:report");
            assertThat(view.read("$.held", Boolean.class)).isTrue();
            assertThat(view.read("$.state", String.class)).isEqualTo("HELD");
            assertThat(view.read("$.holder.application", String.class)).isEqualTo("orders");
            assertThat(view.read("$.holder.pid", Long.class)).isEqualTo(ProcessHandle.current().pid());
            assertThat(view.read("$.holder.host", String.class)).isNotBlank();
            assertThat(view.read("$.holder.instance", String.class)).isNotBlank();
            assertThat(view.read("$.holder.since", String.class)).endsWith("Z");
            assertThat(view.read("$.fencingToken", Long.class)).isEqualTo(lock.fencingToken());
            assertThat(view.read("$.waiting", Integer.class)).isZero();
            // No lease in the store: a ZooKeeper lock lasts as long as its session. Absent fields are left out.
            assertThat(view.jsonString()).doesNotContain("leaseRemaining");
        }
        DocumentContext free = view(reports, "job:report");
        assertThat(free.read("$.held", Boolean.class)).isFalse();
        assertThat(free.read("$.state", String.class)).isEqualTo("FREE");
        assertThat(free.jsonString()).doesNotContain("\"holder\"", "fencingToken", "leaseRemaining");
        assertThat(free.read("$.holders", List.class)).isEmpty();
    }

    @Test
    void aNameWithSlashesIsOneLockAndANameTheStoreRefusesIsABadRequest() throws Exception {
        ConfigurableApplicationContext orders = application("orders");
        ConfigurableApplicationContext reports = application("reports");
        try (LockHandle lock = hold(orders, "nobody:holds/this")) {
            // The remaining path is the name, slashes and all; the store encodes it into one node.
            DocumentContext view = view(reports, "nobody:holds/this");
            assertThat(view.read("$.key", String.class)).isEqualTo("/web/nobody:holds%2Fthis");
            assertThat(view.read("$.held", Boolean.class)).isTrue();
            assertThat(view.read("$.fencingToken", Long.class)).isEqualTo(lock.fencingToken());
            assertThat(view(reports, "nobody:holds").read("$.state", String.class)).isEqualTo("FREE");
        }
        // Longer than a lock name may be (512 bytes of UTF-8): refused before anything is sent to ZooKeeper.
        HttpResponse<String> refused = get(reports, "x".repeat(513));
        assertThat(refused.statusCode()).isEqualTo(400);
        HttpResponse<String> refusedUnicode = get(reports, "%C3%A9".repeat(257));
        assertThat(refusedUnicode.statusCode()).isEqualTo(400);
        assertThat(view(reports, "%C3%A9".repeat(256)).read("$.state", String.class)).isEqualTo("FREE");
    }

    @Test
    void keysAreEchoedMaskedUnlessShown() throws Exception {
        ConfigurableApplicationContext billing = application("billing");
        ConfigurableApplicationContext reports = application("reports", "management.endpoint.redislocks.show-keys=never");
        try (LockHandle lock = hold(billing, "user:alice")) {
            await().atMost(Duration.ofSeconds(10))
                .until(() -> view(reports, "user:alice").read("$.holder.known", Boolean.class));
            DocumentContext view = view(reports, "user:alice");
            assertThat(view.read("$.key", String.class)).isEqualTo("******");
            assertThat(view.read("$.held", Boolean.class)).isTrue();
            assertThat(view.read("$.holder.application", String.class)).isEqualTo("billing");
        }
    }

    @Test
    void theEndpointIsThereOnlyWhenExposedAndAccessible() throws Exception {
        ConfigurableApplicationContext none = application("none", "management.endpoint.redislocks.access=none");
        ConfigurableApplicationContext hidden = application("hidden", "management.endpoints.web.exposure.include=health");
        ConfigurableApplicationContext readOnly = application("read-only",
                "management.endpoints.access.default=none", "management.endpoint.redislocks.access=read-only");
        assertThat(get(none, "job:report").statusCode()).isEqualTo(404);
        assertThat(get(hidden, "job:report").statusCode()).isEqualTo(404);
        assertThat(view(readOnly, "job:report").read("$.state", String.class)).isEqualTo("FREE");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

    }
}
