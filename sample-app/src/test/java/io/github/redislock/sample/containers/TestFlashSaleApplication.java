package io.github.redislock.sample.containers;

import io.github.redislock.sample.FlashSaleApplication;

import org.springframework.boot.SpringApplication;

/**
 * The sample on Redis in a container, for {@code mvn spring-boot:test-run}: Spring Boot's dev-time Testcontainers
 * support starts the container with the application and connects it. The app's own fallback (a local
 * redis-server when no Redis is configured) is turned off here.
 */
public final class TestFlashSaleApplication {

    private TestFlashSaleApplication() {
    }

    public static void main(String[] args) {
        String[] withArgs = new String[args.length + 1];
        System.arraycopy(args, 0, withArgs, 0, args.length);
        withArgs[args.length] = "--flash-sale.embedded-redis.enabled=false";
        SpringApplication.from(FlashSaleApplication::main).with(RedisContainerConfiguration.class).run(withArgs);
    }
}
