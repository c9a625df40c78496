package io.github.redislock.redis;

import io.github.redislock.LockValues;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.redis.support.LockKeys;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class RedisLockClientTest {

    private static final long NO_WAIT = 0;

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static LettuceConnectionFactory connections;

    private static RedisLockClient client;

    @BeforeAll
    static void startRedis() {
        connections = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        client = new RedisLockClient(connections, "");
    }

    @AfterAll
    static void stopRedis() {
        connections.destroy();
    }

    @Test
    void acquireStoresTokenUnderExactKeyWithLeaseAsTtl() {
        try (LockHandle handle = acquire(client, List.of("sku:42:lock"), NO_WAIT, 30_000)) {
            assertThat(handle).isNotNull();
            assertThat(redis.command("GET", "sku:42:lock")).isEqualTo(handle.token());
            long ttl = (Long) redis.command("PTTL", "sku:42:lock");
            assertThat(ttl).isBetween(29_000L, 30_000L);
            assertThat(handle.isHeld()).isTrue();
        }
        assertThat(LockValues.held(redis.command("GET", "sku:42:lock"))).isFalse();
    }

    @Test
    void keyPrefixIsPrepended() {
        RedisLockClient prefixed = new RedisLockClient(connections, "app:");
        try (LockHandle handle = acquire(prefixed, List.of("sku:1"), NO_WAIT, 1_000)) {
            assertThat(handle.key()).isEqualTo("app:sku:1");
            assertThat(LockValues.held(redis.command("GET", "app:sku:1"))).isTrue();
        }
    }

    @Test
    void tokensAreFreshAndCarry128RandomBitsOfTheirClient() {
        String first;
        try (LockHandle handle = acquire(client, List.of("k"), NO_WAIT, 1_000)) {
            first = handle.token();
        }
        try (LockHandle handle = acquire(client, List.of("k"), NO_WAIT, 1_000)) {
            assertThat(handle.token()).isNotEqualTo(first);
            // 22 URL-safe Base64 characters = 132 bits of encoding for 128 random bits, then the sequence.
            assertThat(handle.token()).matches("[A-Za-z0-9_-]{22}\\.[0-9a-z]+:" + handle.fencingToken());
            assertThat(handle.token()).startsWith(first.substring(0, 23));
        }
        RedisLockClient other = new RedisLockClient(connections, "");
        try (LockHandle handle = acquire(other, List.of("k"), NO_WAIT, 1_000)) {
            assertThat(handle.token().substring(0, 22)).as("another client's random part")
                .isNotEqualTo(first.substring(0, 22));
        }
        finally {
            other.close();
        }
    }

    @Test
    void zeroWaitFailsAtOnceWhenTaken() {
        try (LockHandle holder = acquire(client, List.of("k"), NO_WAIT, 30_000)) {
            long start = System.nanoTime();
            assertThat(onOtherThread(() -> acquire(client, List.of("k"), NO_WAIT, 30_000))).isNull();
            // One round trip, no waiting: far below the first backoff pause's upper bound of any real wait.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
            assertThat(redis.command("GET", "k")).isEqualTo(holder.token());
        }
    }

    @Test
    void waiterGetsLockOnceHolderReleases() throws Exception {
        LockHandle holder = acquire(client, List.of("k"), NO_WAIT, 30_000);
        CompletableFuture<LockHandle> waiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.complete(acquire(client, List.of("k"), TimeUnit.SECONDS.toNanos(20), 30_000));
            }
            catch (Throwable ex) {
                waiter.completeExceptionally(ex);
            }
        });
        thread.start();
        awaitBackingOff(thread);
        assertThat(waiter).isNotDone();
        holder.close();
        LockHandle acquired = waiter.get(20, TimeUnit.SECONDS);
        assertThat(acquired).isNotNull();
        assertThat(redis.command("GET", "k")).isEqualTo(acquired.token());
        acquired.close();
    }

    @Test
    void waiterGivesUpWhenWaitRunsOut() {
        try (LockHandle holder = acquire(client, List.of("k"), NO_WAIT, 30_000)) {
            long start = System.nanoTime();
            assertThat(onOtherThread(() -> acquire(client, List.of("k"), TimeUnit.MILLISECONDS.toNanos(150), 30_000)))
                    .isNull();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        }
    }

    @Test
    void releaseLeavesAnotherHoldersLockInPlaceAfterLeaseExpired() {
        // The seeds' scenario: A's fixed lease runs out while A still works; B takes the lock; A finishes and
        // releases. A plain DEL would delete B's lock; compare-and-delete must not.
        LockHandle first = acquire(client, List.of("k"), NO_WAIT, 100);
        awaitExpiry("k");
        assertThat(first.isHeld()).isFalse();
        LockHandle second = onOtherThread(() -> acquire(client, List.of("k"), NO_WAIT, 30_000));
        assertThat(second).isNotNull();
        first.close();
        assertThat(redis.command("GET", "k")).isEqualTo(second.token());
        assertThat(second.isHeld()).isTrue();
        second.close();
        assertThat(LockValues.held(redis.command("GET", "k"))).isFalse();
    }

    @Test
    void releaseWorksAfterScriptCacheWasFlushed() {
        LockHandle warmUp = acquire(client, List.of("k"), NO_WAIT, 30_000);
        warmUp.close();
        LockHandle handle = acquire(client, List.of("k"), NO_WAIT, 30_000);
        redis.command("SCRIPT", "FLUSH");
        handle.close();
        assertThat(LockValues.held(redis.command("GET", "k"))).isFalse();
    }

    @Test
    void closingTwiceIsHarmless() {
        LockHandle handle = acquire(client, List.of("k"), NO_WAIT, 30_000);
        handle.close();
        LockHandle other = onOtherThread(() -> acquire(client, List.of("k"), NO_WAIT, 30_000));
        handle.close();
        assertThat(redis.command("GET", "k")).isEqualTo(other.token());
        other.close();
    }

    @Test
    void severalKeysAreAllOrNothing() {
        try (LockHandle blocker = acquire(client, List.of("b"), NO_WAIT, 30_000)) {
            assertThat(onOtherThread(() -> acquire(client, List.of("a", "b", "c"), NO_WAIT, 30_000))).isNull();
            assertThat(LockValues.held(redis.command("GET", "a"))).isFalse();
            assertThat(LockValues.held(redis.command("GET", "c"))).isFalse();
        }
        try (LockHandle all = acquire(client, List.of("a", "b", "c"), NO_WAIT, 30_000)) {
            assertThat(all.key()).isEqualTo("a,b,c");
            String owner = all.token().substring(0, all.token().indexOf(':'));
            assertThat((List<?>) redis.command("MGET", "a", "b", "c")).allSatisfy(
                    (value) -> assertThat((String) value).startsWith(owner + ":"));
        }
        assertThat(LockValues.held(redis.command("GET", "a"))).as("a").isFalse();
assertThat(LockValues.held(redis.command("GET", "b"))).as("b").isFalse();
assertThat(LockValues.held(redis.command("GET", "c"))).as("c").isFalse();
    }

    @Test
    void invalidKeysFailBeforeRedis() {
        assertThatThrownBy(() -> acquire(client, List.of(""), NO_WAIT, 1_000)).isInstanceOf(LockException.class)
                .hasMessageContaining("null or empty");
        assertThatThrownBy(() -> acquire(client, Collections.singletonList(null), NO_WAIT, 1_000))
                .isInstanceOf(LockException.class);
        String tooLong = "x".repeat(LockKeys.MAX_KEY_BYTES + 1);
        assertThatThrownBy(() -> acquire(client, List.of(tooLong), NO_WAIT, 1_000)).isInstanceOf(LockException.class)
                .hasMessageContaining(tooLong.substring(0, 64)).hasMessageContaining("512 bytes");
        String longest = "x".repeat(LockKeys.MAX_KEY_BYTES);
        try (LockHandle handle = acquire(client, List.of(longest), NO_WAIT, 1_000)) {
            assertThat(handle.key()).hasSize(LockKeys.MAX_KEY_BYTES);
        }
        // 171 three-byte characters = 513 bytes.
        assertThatThrownBy(() -> acquire(client, List.of("锁".repeat(171)), NO_WAIT, 1_000))
                .isInstanceOf(LockException.class);
        // Half an emoji: its UTF-8 bytes would not be the key compared here.
        assertThatThrownBy(() -> acquire(client, List.of("sku:" + "😀".substring(0, 1)), NO_WAIT, 1_000))
                .isInstanceOf(LockException.class).hasMessageContaining("lone surrogate");
        assertThat(redis.command("DBSIZE")).isEqualTo(0L);
    }

    /** Runs an acquisition on another thread: the same thread would re-enter a lock it holds. */
    static <T> T onOtherThread(java.util.function.Supplier<T> action) {
        try {
            return CompletableFuture.supplyAsync(action, (task) -> new Thread(task).start()).get(30, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Waits until the thread is parked in a backoff pause, i.e. it has tried and failed at least once. */
    static void awaitBackingOff(Thread thread) {
        await("the waiter to back off").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> thread.getState() == Thread.State.TIMED_WAITING);
    }

    /** Waits until Redis itself has expired the key (PTTL is -2). */
    static void awaitExpiry(String key) {
        await("key " + key + " to expire").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> (Long) redis.command("PTTL", key) == -2L);
    }
}
