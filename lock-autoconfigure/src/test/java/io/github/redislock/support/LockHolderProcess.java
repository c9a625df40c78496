package io.github.redislock.support;

import java.io.InputStream;
import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * A separate JVM, one instance of an application that takes a lock and holds it (renewed) until the process is
 * killed or its standard input ends. It prints {@code HELD <fencing token> <pid>} once the lock is held (its
 * instance registry entry is written at start-up, on a thread of its own: a viewer polls until it is there).
 * <p>
 * Arguments: redis-url application-name key-prefix key lease-time instance-ttl
 */
public final class LockHolderProcess {

    private LockHolderProcess() {
    }

    public static void main(String[] args) throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Config.class)
            .web(WebApplicationType.NONE)
            .properties("spring.data.redis.url=" + args[0], "spring.application.name=" + args[1],
                    "redis-lock.key-prefix=" + args[2], "redis-lock.lease-time=" + args[4],
                    "redis-lock.instance-ttl=" + args[5], "spring.main.banner-mode=off", "logging.level.root=warn")
            .run()) {
            try (LockHandle lock = context.getBean(DistributedLockTemplate.class)
                .acquire(LockRequest.of(args[3], Duration.ZERO, null))) {
                System.out.println("HELD " + lock.fencingToken() + " " + ProcessHandle.current().pid());
                System.out.flush();
                // Held until killed, or until the test closes our standard input.
                InputStream in = System.in;
                while (in.read() >= 0) {
                    // nothing: only the end of the input counts
                }
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportLockAutoConfiguration
    static class Config {

    }
}
