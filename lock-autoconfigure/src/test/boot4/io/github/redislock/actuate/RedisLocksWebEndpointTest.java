package io.github.redislock.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLocksEndpointAutoConfiguration;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.servlet.autoconfigure.actuate.web.ServletManagementContextAutoConfiguration;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code GET /actuator/redislocks} in a real web application, as an operator calls it. */
class RedisLocksWebEndpointTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Test
    void answersWithTheHeldLocksAsJsonAndRefusesToRelease() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebApp.class)
            .web(WebApplicationType.SERVLET)
            .properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
                    "spring.data.redis.url=" + redis.url(), "spring.data.redis.lettuce.pool.enabled=false",
                    "redis-lock.key-prefix=web:", "management.endpoints.web.exposure.include=redislocks",
                    "management.endpoint.redislocks.show-keys=always")
            .run()) {
            int port = ((WebServerApplicationContext) context).getWebServer().getPort();
            try (LockHandle lock = context.getBean(DistributedLockTemplate.class)
                .acquire(LockRequest.of("report", Duration.ZERO, null))) {
                HttpClient http = HttpClient.newHttpClient();
                URI uri = URI.create("http://127.0.0.1:" + port + "/actuator/redislocks");
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                DocumentContext json = JsonPath.parse(response.body());
                assertThat(json.read("$.held[0].key", String.class)).isEqualTo("web:report");
                assertThat(json.read("$.held[0].fencingToken", Long.class)).isEqualTo(lock.fencingToken());
                assertThat(json.read("$.held[0].renewed", Boolean.class)).isTrue();
                assertThat(json.read("$.held[0].heldSince", String.class)).endsWith("Z");
                assertThat(json.read("$.held[0].leaseTime", String.class)).isEqualTo("PT30S");
                assertThat(json.read("$.renewal.period", String.class)).isEqualTo("PT10S");
                assertThat(json.read("$.renewal.status", String.class)).isEqualTo("OK");
                assertThat(json.read("$.waiting", List.class)).isEmpty();

                // Read-only: there is no operation that could release someone's lock over HTTP.
                HttpResponse<String> delete = http.send(HttpRequest.newBuilder(uri).DELETE().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(delete.statusCode()).isEqualTo(405);
                assertThat(lock.verifyHeld()).isTrue();
            }
        }
    }

    /** Only what a web application with Actuator needs to serve the endpoint, to start quickly. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
            RedisLockAutoConfiguration.class, LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class,
            RedisLocksEndpointAutoConfiguration.class,
            TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
            WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
            EndpointAutoConfiguration.class, JacksonEndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
            ManagementContextAutoConfiguration.class, ServletManagementContextAutoConfiguration.class })
    static class WebApp {

    }
}
