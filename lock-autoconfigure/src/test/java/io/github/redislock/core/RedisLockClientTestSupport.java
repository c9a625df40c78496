package io.github.redislock.core;

import io.github.redislock.LockValues;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

final class RedisLockClientTestSupport {

    private RedisLockClientTestSupport() {
    }

    /** Polls Redis until the key no longer exists (expired or deleted); fails after 10 s. */
    static void awaitGone(RedisServer redis, String key) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (LockValues.held(redis.command("GET", key))) {
            assertThat(System.nanoTime()).as("key " + key + " never went away").isLessThan(deadline);
            LockSupport.parkNanos(1_000_000);
        }
    }
}
