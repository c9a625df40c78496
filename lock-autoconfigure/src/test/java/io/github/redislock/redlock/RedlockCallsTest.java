package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.RedlockMasters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How Redlock's calls reach the nodes: a round's answers come back on whatever thread received them, and each
 * node's bound on calls on their way must count every call out and back in, or a healthy node would come to look
 * stalled (its calls refused at once) after enough cycles.
 */
class RedlockCallsTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(5);

    @Test
    void everyCallSlotComesBackOnceTheNodesHaveAnswered() {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "");
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            List<CompletableFuture<Void>> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String prefix = "calls:" + t + ":";
                threads.add(CompletableFuture.runAsync(() -> {
                    // More cycles per thread than a node has slots: a slot lost per cycle would exhaust them.
                    for (int i = 0; i < 3 * RedlockNode.MAX_CALLS_IN_FLIGHT; i++) {
                        engine.acquire(LockRequest.of(prefix + i, Duration.ofSeconds(5), null)).close();
                    }
                }));
            }
            CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).join();
            await().untilAsserted(() -> assertThat(store.nodes())
                .allSatisfy((node) -> assertThat(node.callsOnTheirWay()).as("%s", node).isZero()));
        }
    }
}
