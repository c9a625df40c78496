package io.github.redislock.sample;

import java.time.Duration;

import io.github.redislock.sample.redis.EmbeddedRedis;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RespConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Redis the app uses when started with no arguments. The probe port, 6379 in real use, is pointed at a
 * port chosen by the test, so that the result does not depend on whether this machine happens to run a Redis.
 */
class EmbeddedRedisDefaultTest {

    /** The Redis that is already running, or configured, where a test needs one. */
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Test
    void startsLocalRedisWhenNoneIsConfiguredOrRunning() {
        int nothingThere = UnusedPort.find();
        int embeddedPort;
        try (ConfigurableApplicationContext app = start("--flash-sale.embedded-redis.probe-port=" + nothingThere)) {
            EmbeddedRedis embedded = app.getBean(EmbeddedRedis.class);
            embeddedPort = embedded.port();
            assertThat(embedded.isRunning()).isTrue();
            assertThat(app.getEnvironment().getProperty("spring.data.redis.url")).isEqualTo(embedded.url());
            StringRedisTemplate redis = app.getBean(StringRedisTemplate.class);
            redis.opsForValue().set("flash-sale:probe", "written through the app");
            assertThat(getDirectly(embeddedPort, "flash-sale:probe")).isEqualTo("written through the app");
        }
        assertThat(RedisServer.isListening(embeddedPort)).as("stopped with the application").isFalse();
    }

    @Test
    void usesRedisAlreadyRunningOnProbePort() {
        try (ConfigurableApplicationContext app = start(
                "--flash-sale.embedded-redis.probe-port=" + redis.server().port())) {
            assertThat(app.getBeansOfType(EmbeddedRedis.class)).isEmpty();
            app.getBean(StringRedisTemplate.class).opsForValue().set("flash-sale:probe", "here");
            assertThat(redis.command("GET", "flash-sale:probe")).isEqualTo("here");
        }
    }

    @Test
    void usesConfiguredRedis() {
        try (ConfigurableApplicationContext app = start("--spring.data.redis.url=" + redis.url(),
                "--flash-sale.embedded-redis.probe-port=" + UnusedPort.find())) {
            assertThat(app.getBeansOfType(EmbeddedRedis.class)).isEmpty();
            app.getBean(StringRedisTemplate.class).opsForValue().set("flash-sale:probe", "configured");
            assertThat(redis.command("GET", "flash-sale:probe")).isEqualTo("configured");
        }
    }

    @Test
    void startsNothingWhenTurnedOff() {
        try (ConfigurableApplicationContext app = start("--flash-sale.embedded-redis.enabled=false",
                "--flash-sale.embedded-redis.probe-port=" + UnusedPort.find())) {
            assertThat(app.getBeansOfType(EmbeddedRedis.class)).isEmpty();
            assertThat(app.getEnvironment().getProperty("spring.data.redis.url")).isNull();
        }
    }

    /** No web server and lazy beans: only the start-up decision is under test. */
    private static ConfigurableApplicationContext start(String... args) {
        return new SpringApplicationBuilder(FlashSaleApplication.class).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "spring.main.lazy-initialization=true")
                .run(args);
    }

    /** Reads a key over a connection of its own, not the app's. */
    private static Object getDirectly(int port, String key) {
        try (RespConnection connection = RespConnection.open("127.0.0.1", port, Duration.ofSeconds(5))) {
            return connection.command("GET", key);
        }
    }
}
