package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RespConnection;
import io.github.redislock.testsupport.RespConnection.RedisErrorReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * The release contract, judged from outside through Redis itself: a release with nobody waiting leaves no
 * key behind (so any other locking scheme on the same key, a plain {@code SET NX PX}, gets in at once), never
 * deletes a key that holds someone else's value, still frees the key when Redis is out of memory, and
 * fencing tokens keep growing whatever happened to the key.
 */
class ReleaseDeletesKeyTest {

    private static final String KEY = "job";

    private static final String REDIS_KEY = LockApplication.PREFIX + KEY;

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Test
    void releaseWithNobodyWaitingLeavesNoKey() {
        try (LockApplication app = LockApplication.start(redis.server())) {
            long existsInside = app.template().execute(KEY, Duration.ZERO, null, () -> exists(REDIS_KEY));
            assertThat(existsInside).as("EXISTS %s while held", REDIS_KEY).isEqualTo(1);
            assertThat(exists(REDIS_KEY)).as("EXISTS %s after the release; value left: %s", REDIS_KEY,
                    redis.command("GET", REDIS_KEY)).isZero();
        }
    }

    @Test
    void plainSetNxOnTheKeySucceedsRightAfterRelease() {
        try (LockApplication app = LockApplication.start(redis.server())) {
            app.template().run(KEY, Duration.ZERO, null, () -> {
            });
            Object reply = redis.command("SET", REDIS_KEY, "seed-style-lock", "NX", "PX", "10000");
            assertThat(reply).as("SET %s v NX PX 10000 right after our release (value found: %s)", REDIS_KEY,
                    redis.command("GET", REDIS_KEY)).isEqualTo("OK");
        }
    }

    @Test
    void releaseOfAnExpiredFixedLeaseLockLeavesAnotherOwnersValueInPlace() throws Exception {
        try (LockApplication app = LockApplication.start(redis.server())) {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            try (Background<Void> holder = Background.start("fixed-lease-holder", () -> {
                app.template().run(KEY, Duration.ZERO, Duration.ofMillis(100), () -> {
                    entered.countDown();
                    awaitUninterruptibly(finish, Duration.ofSeconds(30));
                });
                return null;
            })) {
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                await("the 100 ms lease to run out").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                        .until(() -> exists(REDIS_KEY) == 0);
                assertThat(redis.command("SET", REDIS_KEY, "someone-else", "PX", "30000")).isEqualTo("OK");
                finish.countDown();
                holder.get(Duration.ofSeconds(10));
            }
            assertThat(redis.command("GET", REDIS_KEY)).isEqualTo("someone-else");
        }
    }

    @Test
    void releaseWithRedisOutOfMemoryStillDeletesTheKey() throws Exception {
        try (LockApplication app = LockApplication.start(redis.server());
                RespConnection raw = RespConnection.open(redis.server().host(), redis.server().port(),
                        Duration.ofSeconds(5))) {
            LockHandle handle = app.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
            List<String> fillers = new ArrayList<>();
            try {
                fillUntilOutOfMemory(raw, fillers);
                assertRedisRefusesWrites(raw);
                assertThatCode(handle::close).as("release while Redis is out of memory")
                        .doesNotThrowAnyException();
                assertThat(exists(REDIS_KEY)).as("EXISTS %s after the release; value left: %s", REDIS_KEY,
                        redis.command("GET", REDIS_KEY)).isZero();
            }
            finally {
                freeMemory(raw, fillers);
            }
        }
    }

    @Test
    void releaseWithRedisOutOfMemoryAndAnotherApplicationWaitingDeletesTheKeyAndTheWaiterGetsInOnceMemoryIsFreed()
            throws Exception {
        try (LockApplication holderApp = LockApplication.start(redis.server());
                LockApplication waiterApp = LockApplication.start(redis.server());
                RespConnection raw = RespConnection.open(redis.server().host(), redis.server().port(),
                        Duration.ofSeconds(5))) {
            LockHandle handle = holderApp.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
            List<String> fillers = new ArrayList<>();
            try (Background<Long> waiter = Background.start("waiter",
                    () -> executeRetryingOutOfMemory(waiterApp.template(), Duration.ofSeconds(30)))) {
                waiter.awaitBlockedInside();
                try {
                    fillUntilOutOfMemory(raw, fillers);
                    assertRedisRefusesWrites(raw);
                    assertThatCode(handle::close).as("release while Redis is out of memory and a waiter is queued")
                            .doesNotThrowAnyException();
                    assertThat(exists(REDIS_KEY)).as("EXISTS %s after the release; value left: %s", REDIS_KEY,
                            redis.command("GET", REDIS_KEY)).isZero();
                }
                finally {
                    freeMemory(raw, fillers);
                }
                assertThat(waiter.get(Duration.ofSeconds(5))).as("the waiter's fencing token")
                        .isGreaterThan(handle.fencingToken());
            }
        }
    }

    @Test
    void fencingTokensIncreaseWhenEachReleaseLeavesNoTraceOfTheKey() {
        try (LockApplication app = LockApplication.start(redis.server())) {
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                try (LockHandle handle = app.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow()) {
                    tokens.add(handle.fencingToken());
                }
                // Whatever the release left is removed: the next holder finds the key as a deleting release
                // leaves it.
                redis.command("DEL", REDIS_KEY);
            }
            assertThat(tokens).doesNotHaveDuplicates().isSortedAccordingTo(Comparator.naturalOrder());
        }
    }

    @Test
    void fencingTokenIncreasesAcrossARedisRestartThatLostTheKey() throws Exception {
        // A server of its own: the test restarts it, which would empty the class's shared one under its other tests.
        try (RedisServer server = RedisServer.start();
                LockApplication first = LockApplication.start(server);
                LockApplication second = LockApplication.start(server)) {
            LockHandle before = first.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
            try {
                server.restart();
                assertThat(server.command("EXISTS", REDIS_KEY)).as("key after the restart").isEqualTo(0L);
                LockHandle after = await("a lock on the restarted Redis").atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(50)).ignoreExceptionsInstanceOf(LockException.class)
                        .until(() -> second.template().tryAcquire(KEY, Duration.ZERO, null), Optional::isPresent)
                        .orElseThrow();
                try (after) {
                    assertThat(after.fencingToken()).isGreaterThan(before.fencingToken());
                }
            }
            finally {
                before.close();
            }
        }
    }

    @Test
    void fencingTokenIncreasesAcrossAHandOffToAWaitingApplication() throws Exception {
        try (LockApplication holderApp = LockApplication.start(redis.server());
                LockApplication waiterApp = LockApplication.start(redis.server())) {
            LockHandle handle = holderApp.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
            AtomicBoolean released = new AtomicBoolean();
            try (Background<Long> waiter = Background.start("waiter", () -> waiterApp.template().execute(KEY,
                    Duration.ofSeconds(20), null, () -> {
                        assertThat(released).as("released before the waiter got in").isTrue();
                        return LockContext.current().orElseThrow().fencingToken();
                    }))) {
                waiter.awaitBlockedInside();
                released.set(true);
                handle.close();
                assertThat(waiter.get(Duration.ofSeconds(10))).isGreaterThan(handle.fencingToken());
            }
        }
    }

    /**
     * execute() with a long wait, trying again only when Redis refused a write for lack of memory (acquire
     * attempts write, and the test fills Redis while this one waits). Returns the fencing token it got.
     */
    private static long executeRetryingOutOfMemory(DistributedLockTemplate template, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try {
                return template.execute(KEY, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), null,
                        () -> LockContext.current().orElseThrow().fencingToken());
            }
            catch (LockException ex) {
                if (!causedByOutOfMemory(ex) || System.nanoTime() > deadline) {
                    throw ex;
                }
                // Redis is full for a moment: pace the next attempt.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
    }

    private static boolean causedByOutOfMemory(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains("OOM")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sets {@code maxmemory-policy noeviction} and {@code maxmemory} just above what Redis uses now, then
     * writes values, ever smaller (a big one is refused while a small one still fits), until Redis refuses even
     * a one-byte value with an OOM error. The keys written go into {@code fillers}.
     */
    private static void fillUntilOutOfMemory(RespConnection raw, List<String> fillers) {
        raw.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
        raw.command("CONFIG", "SET", "maxmemory", Long.toString(usedMemory(raw) + 1024 * 1024));
        for (int size : new int[] { 64 * 1024, 4 * 1024, 256, 1 }) {
            String value = "x".repeat(size);
            while (true) {
                String key = "filler:" + fillers.size();
                try {
                    raw.command("SET", key, value);
                    fillers.add(key);
                }
                catch (RedisErrorReply ex) {
                    assertThat(ex.getMessage()).startsWith("OOM");
                    break;
                }
                if (fillers.size() > 100_000) {
                    fail("Redis never refused a write; used_memory " + usedMemory(raw));
                }
            }
        }
    }

    private static void assertRedisRefusesWrites(RespConnection raw) {
        assertThatThrownBy(() -> raw.command("SET", "probe", "x")).as("a write to the full Redis")
                .isInstanceOf(RedisErrorReply.class).hasMessageStartingWith("OOM");
    }

    private static void freeMemory(RespConnection raw, List<String> fillers) {
        raw.command("CONFIG", "SET", "maxmemory", "0");
        for (String filler : fillers) {
            raw.command("UNLINK", filler);
        }
    }

    private static long usedMemory(RespConnection raw) {
        String info = (String) raw.command("INFO", "memory");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("No used_memory in INFO memory: " + info);
    }

    private static long exists(String key) {
        return (Long) redis.command("EXISTS", key);
    }

    private static void awaitUninterruptibly(CountDownLatch latch, Duration timeout) {
        try {
            latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
