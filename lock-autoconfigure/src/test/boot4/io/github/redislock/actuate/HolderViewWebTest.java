package io.github.redislock.actuate;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.support.LockHolderProcess;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code GET /actuator/redislocks/{key}} across applications, as an operator calls it: the "reports" application's
 * endpoint names the "orders" instance, a separate JVM, as the holder of a key; once that JVM is killed the key
 * is free within one lease and its registry entries are gone within their TTL; a stopped instance's entries go at
 * once.
 */
class HolderViewWebTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final Duration LEASE = Duration.ofSeconds(2);

    private static final Duration INSTANCE_TTL = Duration.ofSeconds(3);

    private final HttpClient http = HttpClient.newHttpClient();

    private static ConfigurableApplicationContext application(String name, String showKeys) {
        return new SpringApplicationBuilder(RedisLocksWebEndpointTest.WebApp.class).web(WebApplicationType.SERVLET)
            .properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
                    "spring.application.name=" + name, "spring.data.redis.url=" + redis.url(),
                    "spring.data.redis.lettuce.pool.enabled=false", "redis-lock.key-prefix=web:",
                    "redis-lock.instance-ttl=" + INSTANCE_TTL.toMillis() + "ms",
                    "management.endpoints.web.exposure.include=redislocks",
                    "management.endpoint.redislocks.show-keys=" + showKeys)
            .run();
    }

    private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        URI uri = URI.create("http://127.0.0.1:" + port + "/actuator/redislocks/" + path);
        return this.http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private DocumentContext view(ConfigurableApplicationContext context, String key) throws Exception {
        HttpResponse<String> response = get(context, key);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JsonPath.parse(response.body());
    }

    private static List<?> entries() {
        return (List<?>) redis.command("KEYS", "web:~lock~instance:*");
    }

    @Test
    void anotherApplicationsEndpointNamesTheHolderUntilItsJvmIsKilled() throws Exception {
        try (ConfigurableApplicationContext reports = application("reports", "always")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> entries().size() == 2);
            Process orders = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), LockHolderProcess.class.getName(), redis.url(),
                    "orders", "web:", "job:report", LEASE.toMillis() + "ms", INSTANCE_TTL.toMillis() + "ms")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
            try {
                String[] held = awaitHeld(orders);
                long fence = Long.parseLong(held[1]);
                long pid = Long.parseLong(held[2]);
                assertThat(pid).isEqualTo(orders.pid());
                // Its registry entry is written on its own thread at start-up.
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> view(reports, "job:report").read("$.holder.known", Boolean.class));
                DocumentContext view = view(reports, "job:report");
                assertThat(view.read("$.key", String.class)).isEqualTo("web:job:report");
                assertThat(view.read("$.held", Boolean.class)).isTrue();
                assertThat(view.read("$.state", String.class)).isEqualTo("HELD");
                assertThat(view.read("$.holder.application", String.class)).isEqualTo("orders");
                assertThat(view.read("$.holder.pid", Long.class)).isEqualTo(pid);
                assertThat(view.read("$.holder.host", String.class)).isNotBlank();
                assertThat(view.read("$.holder.instance", String.class)).isNotBlank();
                assertThat(view.read("$.holder.since", String.class)).endsWith("Z");
                assertThat(view.read("$.fencingToken", Long.class)).isEqualTo(fence);
                assertThat(Duration.parse(view.read("$.leaseRemaining", String.class))).isPositive()
                    .isLessThanOrEqualTo(LEASE);
                assertThat(view.read("$.waiting", Integer.class)).isZero();

                orders.destroyForcibly();
                long killed = System.nanoTime();
                assertThat(orders.waitFor(30, TimeUnit.SECONDS)).isTrue();
                // The lease was renewed last before the kill: every answer that begins a lease after it says free.
                assertThat(answersAfter(reports, killed + LEASE.toNanos(), Duration.ofSeconds(1)))
                    .isNotEmpty()
                    .allSatisfy((answer) -> assertThat(answer.read("$.held", Boolean.class)).isFalse());
                // And its registry entries (token id and client id) expire within their TTL, leaving the viewer's.
                long entriesGone = killed + INSTANCE_TTL.toNanos();
                await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - entriesGone > 0);
                assertThat(entries()).hasSize(2);
            }
            finally {
                orders.destroyForcibly();
            }
        }
    }

    @Test
    void aKeyNobodyHoldsIsFreeAndANameTheLockRefusesIsABadRequest() throws Exception {
        try (ConfigurableApplicationContext reports = application("reports", "always")) {
            DocumentContext view = view(reports, "nobody:holds/this");
            assertThat(view.read("$.key", String.class)).isEqualTo("web:nobody:holds/this");
            assertThat(view.read("$.held", Boolean.class)).isFalse();
            assertThat(view.read("$.state", String.class)).isEqualTo("FREE");
            // Actuator leaves absent (null) fields out.
            assertThat(view.jsonString()).doesNotContain("\"holder\"", "fencingToken", "leaseRemaining");
            assertThat(view.read("$.holders", List.class)).isEmpty();
            assertThat(get(reports, "x~lock~instance:abc").statusCode()).isEqualTo(400);
        }
    }

    @Test
    void keysAreEchoedMaskedUnlessShown() throws Exception {
        try (ConfigurableApplicationContext billing = application("billing", "never");
                ConfigurableApplicationContext reports = application("reports", "never")) {
            try (LockHandle lock = billing.getBean(DistributedLockTemplate.class)
                .acquire(LockRequest.of("user:alice", Duration.ZERO, null))) {
                DocumentContext view = view(reports, "user:alice");
                assertThat(view.read("$.key", String.class)).isEqualTo("******");
                assertThat(view.read("$.held", Boolean.class)).isTrue();
                assertThat(view.read("$.holder.application", String.class)).isEqualTo("billing");
            }
        }
    }

    @Test
    void aStoppedInstancesEntriesGoAtOnce() {
        try (ConfigurableApplicationContext reports = application("reports", "always")) {
            ConfigurableApplicationContext billing = application("billing", "always");
            await().atMost(Duration.ofSeconds(10)).until(() -> entries().size() == 4);
            billing.close();
            assertThat(entries()).hasSize(2);
        }
    }

    /** The process's {@code HELD <fence> <pid>} line. */
    private static String[] awaitHeld(Process process) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("HELD ")) {
                return line.split(" ");
            }
        }
        throw new AssertionError("The holder process ended without holding the lock: exit " + process.waitFor());
    }

    /** Every answer to requests sent from {@code fromNanos} (System.nanoTime) on, for the given time. */
    private List<DocumentContext> answersAfter(ConfigurableApplicationContext context, long fromNanos,
            Duration during) throws Exception {
        List<DocumentContext> answers = new ArrayList<>();
        long until = fromNanos + during.toNanos();
        while (System.nanoTime() - until < 0) {
            long sent = System.nanoTime();
            DocumentContext answer = view(context, "job:report");
            if (sent - fromNanos >= 0) {
                answers.add(answer);
            }
        }
        return answers;
    }
}
