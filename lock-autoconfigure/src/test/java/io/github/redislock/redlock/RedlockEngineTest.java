package io.github.redislock.redlock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.RedlockMasters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What the engine's work looks like on Redlock's nodes, on three independent local masters, judged by reading
 * the nodes directly: a nested acquisition's holdAtLeast kept on every node, and renewal answered per lock of a
 * batch by its own majority. What every store promises (reentrancy, multi-key, nothing left behind, ...) is proven
 * by {@code RedlockStoreContractTest} in the store kit.
 */
class RedlockEngineTest {

    private static final String KEY = "redlock:engine";

    private static final Duration NO_WAIT = Duration.ZERO;

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private final List<RedlockClient> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeClients() {
        this.clients.forEach(RedlockClient::close);
    }

    private RedlockClient client() {
        return client(Duration.ofSeconds(30), LockLossListener.NONE);
    }

    private RedlockClient client(Duration renewedLease, LockLossListener lossListener) {
        RedlockClient client = new RedlockClient(masters.connect(Duration.ofSeconds(5)), "", renewedLease,
                lossListener);
        this.clients.add(client);
        return client;
    }

    private static LockRequest request(String key, Duration wait) {
        return LockRequest.of(key, wait, null);
    }

    /** How many masters hold the key for the handle's token (each node adds a fence of its own). */
    private static long holders(String key, LockHandle handle) {
        String owner = handle.token().substring(0, handle.token().indexOf(':') + 1);
        return masters.all().stream().filter((master) -> {
            Object value = master.command("GET", key);
            return value != null && ((String) value).startsWith(owner);
        }).count();
    }

    private static void awaitFreeEverywhere(String... keys) {
        await().untilAsserted(() -> assertThat(masters.all()).allSatisfy((master) -> {
            for (String key : keys) {
                assertThat(master.command("EXISTS", key)).as("%s on %s", key, master).isEqualTo(0L);
            }
        }));
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
        await().untilAsserted(() -> assertThat(masters.all()).allSatisfy((master) -> {
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
