package io.github.redislock.redlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What Redlock gets from the store-neutral engine: reentrancy (thread-owned; non-reentrant requests neither enter
 * nor are entered), multi-key all or nothing, and renewal answered per lock, on three independent local masters,
 * judged by reading the nodes directly.
 */
class RedlockEngineTest {

    private static final String KEY = "redlock:engine";

    private static final Duration NO_WAIT = Duration.ZERO;

    /** Long enough that a thread kept out surely made several attempts (they are 20–70 ms apart). */
    private static final Duration SHORT_WAIT = Duration.ofMillis(300);

    private static final List<RedisServer> masters = new ArrayList<>();

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<RedlockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startMasters() {
        for (int i = 0; i < 3; i++) {
            masters.add(RedisServer.start());
        }
    }

    @AfterAll
    static void stopMasters() {
        masters.forEach(RedisServer::close);
    }

    @AfterEach
    void closeClients() {
        this.clients.forEach(RedlockClient::close);
        this.factories.forEach(TestConnections::destroy);
        for (RedisServer master : masters) {
            master.resume();
            master.flushAll();
        }
    }

    private RedlockClient client() {
        return client(Duration.ofSeconds(30), LockLossListener.NONE);
    }

    private RedlockClient client(Duration renewedLease, LockLossListener lossListener) {
        if (this.factories.isEmpty()) {
            for (RedisServer master : masters) {
                this.factories.add(TestConnections.lettuce(master, Duration.ofSeconds(5)));
            }
        }
        RedlockClient client = new RedlockClient(this.factories, "", renewedLease, lossListener);
        this.clients.add(client);
        return client;
    }

    private static LockRequest request(String key, Duration wait) {
        return LockRequest.of(key, wait, null);
    }

    /** How many masters hold the key for the handle's token (each node adds a fence of its own). */
    private static long holders(String key, LockHandle handle) {
        String owner = handle.token().substring(0, handle.token().indexOf(':') + 1);
        return masters.stream().filter((master) -> {
            Object value = master.command("GET", key);
            return value != null && ((String) value).startsWith(owner);
        }).count();
    }

    private static void awaitFreeEverywhere(String... keys) {
        await().untilAsserted(() -> assertThat(masters).allSatisfy((master) -> {
            for (String key : keys) {
                assertThat(master.command("EXISTS", key)).as("%s on %s", key, master).isEqualTo(0L);
            }
        }));
    }

    /** Another thread's attempt, with a short wait: kept out, it throws LockNotAcquiredException. */
    private static void assertAnotherThreadIsKeptOut(RedlockClient client, String key) throws Exception {
        CompletableFuture<LockHandle> other = CompletableFuture
            .supplyAsync(() -> client.acquire(request(key, SHORT_WAIT)));
        assertThatThrownBy(() -> other.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(LockNotAcquiredException.class);
    }

    @Test
    void theHoldingThreadEntersAgainWithoutAskingTheNodes() {
        RedlockClient client = client();
        try (LockHandle outer = client.acquire(request(KEY, NO_WAIT))) {
            await().until(() -> holders(KEY, outer) == 3);
            // No node answers now: entering again must not need one.
            masters.forEach(RedisServer::pause);
            try (LockHandle inner = client.acquire(request(KEY, NO_WAIT))) {
                assertThat(inner.isHeld()).isTrue();
                assertThat(inner.token()).isEqualTo(outer.token());
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            }
            finally {
                masters.forEach(RedisServer::resume);
            }
        }
    }

    @Test
    void aNestedReleaseKeepsTheLockAndTheOutermostFreesItOnEveryNode() throws Exception {
        RedlockClient client = client();
        LockHandle outer = client.acquire(request(KEY, NO_WAIT));
        LockHandle inner = client.acquire(request(KEY, NO_WAIT));
        inner.close();
        assertThat(inner.isHeld()).isFalse();
        assertThat(outer.isHeld()).isTrue();
        await().until(() -> holders(KEY, outer) == 3);
        assertAnotherThreadIsKeptOut(client, KEY);
        outer.close();
        assertThat(outer.isHeld()).isFalse();
        awaitFreeEverywhere(KEY);
        try (LockHandle next = client.acquire(request(KEY, NO_WAIT))) {
            assertThat(next.fencingToken()).isGreaterThan(outer.fencingToken());
        }
    }

    @Test
    void anotherThreadIsKeptOutOfAHeldAndEnteredLock() throws Exception {
        RedlockClient client = client();
        try (LockHandle outer = client.acquire(request(KEY, NO_WAIT));
                LockHandle inner = client.acquire(request(KEY, NO_WAIT))) {
            assertAnotherThreadIsKeptOut(client, KEY);
            assertThat(outer.isHeld()).isTrue();
            assertThat(inner.isHeld()).isTrue();
        }
    }

    @Test
    void aNonReentrantRequestNeitherEntersNorIsEntered() {
        RedlockClient client = client();
        try (LockHandle held = client.acquire(request(KEY, NO_WAIT))) {
            assertThatThrownBy(() -> client.acquire(request(KEY, SHORT_WAIT).nonReentrant()))
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(held.isHeld()).isTrue();
        }
        try (LockHandle asynchronous = client.acquire(request(KEY, NO_WAIT).nonReentrant())) {
            assertThatThrownBy(() -> client.acquire(request(KEY, SHORT_WAIT)))
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(asynchronous.isHeld()).isTrue();
        }
        awaitFreeEverywhere(KEY);
    }

    @Test
    void severalKeysAreTakenOnEveryNodeInOrderAndReleasedTogether() {
        RedlockClient client = client();
        LockHandle both = client.acquire(LockRequest.of(List.of("redlock:b", "redlock:a"), NO_WAIT, null));
        assertThat(both.key()).isEqualTo("redlock:a,redlock:b");
        await().untilAsserted(() -> assertThat(masters).allSatisfy((master) -> {
            assertThat(master.command("EXISTS", "redlock:a")).isEqualTo(1L);
            assertThat(master.command("EXISTS", "redlock:b")).isEqualTo(1L);
        }));
        assertThat(holders("redlock:a", both)).isEqualTo(3);
        both.close();
        assertThat(both.isHeld()).isFalse();
        awaitFreeEverywhere("redlock:a", "redlock:b");
    }

    @Test
    void oneBusyKeyLeavesNothingHeldOnAnyNode() {
        RedlockClient first = client();
        RedlockClient second = client();
        try (LockHandle busy = second.acquire(request("redlock:b", NO_WAIT))) {
            assertThatThrownBy(() -> first.acquire(
                    LockRequest.of(List.of("redlock:a", "redlock:b", "redlock:c"), SHORT_WAIT, null)))
                .isInstanceOfSatisfying(LockNotAcquiredException.class, (ex) -> assertThat(ex.getKeys())
                    .containsExactly("redlock:a", "redlock:b", "redlock:c"));
            // "redlock:a" was taken and given back; "redlock:c" was never tried; the busy key is untouched.
            awaitFreeEverywhere("redlock:a", "redlock:c");
            assertThat(holders("redlock:b", busy)).isEqualTo(3);
            assertThat(busy.isHeld()).isTrue();
        }
        awaitFreeEverywhere("redlock:b");
    }

    @Test
    void aMultiKeyRequestEntersTheKeyItsThreadHoldsAndTakesTheRest() {
        RedlockClient client = client();
        try (LockHandle a = client.acquire(request("redlock:a", NO_WAIT))) {
            try (LockHandle both = client.acquire(LockRequest.of(List.of("redlock:a", "redlock:b"), NO_WAIT, null))) {
                assertThat(both.fencingToken()).isEqualTo(a.fencingToken());
                assertThat(both.isHeld()).isTrue();
            }
            awaitFreeEverywhere("redlock:b");
            assertThat(a.isHeld()).isTrue();
            assertThat(holders("redlock:a", a)).isEqualTo(3);
        }
        awaitFreeEverywhere("redlock:a");
    }

    @Test
    void aNestedAcquisitionsLongerHoldAtLeastKeepsTheKeyOnEveryNode() {
        Duration hold = Duration.ofSeconds(5);
        RedlockClient client = client();
        try (LockHandle outer = client.acquire(request(KEY, NO_WAIT))) {
            client.acquire(request(KEY, NO_WAIT).holdAtLeast(hold)).close();
            await().until(() -> holders(KEY, outer) == 3);
        }
        // The outermost release applies the nested minimum, counted from when the outermost one got the key. It
        // returns once a majority kept the key; the other node's answer follows.
        await().untilAsserted(() -> assertThat(masters).allSatisfy((master) -> {
            assertThat((String) master.command("GET", KEY)).startsWith("~kept:");
            assertThat((Long) master.command("PTTL", KEY)).isBetween(1L, hold.toMillis());
        }));
        assertThatThrownBy(() -> client.acquire(request(KEY, NO_WAIT))).isInstanceOf(LockNotAcquiredException.class);
    }
    /**
     * Renewal answers per lock: both locks are renewed in the same batch, and the second one's key is made
     * unreadable on two of the three nodes (a value of another type, so the compare-and-extend fails there with an
     * error). Its rounds have one extension and no majority either way, UNKNOWN every tick, and it is lost once
     * its lease runs out by the local clock. The first one, extended by every node, is extended at every tick
     * before and after that, and is never lost.
     */
    @Test
    void aLockWhoseMajorityExtendedItStaysHeldWhileAnotherOfTheBatchMissesItsMajority() {
        List<String> lost = new CopyOnWriteArrayList<>();
        // Renewed every 666 ms: a tick delayed by a loaded machine still lands within the lease.
        RedlockClient client = client(Duration.ofSeconds(2),
                (key, token, fence, detection) -> lost.add(key + " " + detection));
        String kept = "redlock:kept";
        String unconfirmed = "redlock:unconfirmed";
        LockHandle keptHandle = client.acquire(request(kept, Duration.ofSeconds(10)));
        LockHandle unconfirmedHandle = client.acquire(request(unconfirmed, Duration.ofSeconds(10)));
        await().untilAsserted(() -> {
            assertThat(holders(kept, keptHandle)).isEqualTo(3);
            assertThat(holders(unconfirmed, unconfirmedHandle)).isEqualTo(3);
        });
        for (int i = 0; i < 2; i++) {
            masters.get(i).command("DEL", unconfirmed);
            masters.get(i).command("HSET", unconfirmed, "planted", "1");
        }
        // Marked lost, then signalled: the signal is the later of the two.
        await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
        Instant lostAt = Instant.now();
        assertThat(lost).containsExactly(unconfirmed + " " + LockLossDetection.RENEWAL);
        assertThat(unconfirmedHandle.isLost()).isTrue();
        // Rounds after the loss still extend the other lock: its lease starts after it.
        await().atMost(Duration.ofSeconds(10)).until(() -> leaseStartedAt(client, kept)
            .isAfter(lostAt.plus(client.state().renewal().period())));
        assertThat(keptHandle.isHeld()).isTrue();
        assertThat(keptHandle.isLost()).isFalse();
        assertThat(holders(kept, keptHandle)).isEqualTo(3);
        assertThat(client.state().renewal().lastError()).contains("could not confirm");
        for (int i = 0; i < 2; i++) {
            masters.get(i).command("DEL", unconfirmed);
        }
        unconfirmedHandle.close();
        keptHandle.close();
        assertThat(lost).hasSize(1);
        awaitFreeEverywhere(kept, unconfirmed);
    }

    private static Instant leaseStartedAt(RedlockClient client, String key) {
        return client.state().held().stream().filter((held) -> held.key().equals(key)).findFirst()
            .map(LockEngineState.HeldKey::leaseStartedAt).orElseThrow();
    }
}
