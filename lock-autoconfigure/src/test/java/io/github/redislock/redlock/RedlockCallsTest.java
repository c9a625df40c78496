package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.RedlockMasters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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

    @Test
    void nodesThatLostTheirScriptsAreSentTheBodiesAndTheLockIsTakenOnEveryNode() {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "");
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            engine.acquire(LockRequest.of("scripts:before", Duration.ofSeconds(5), null)).close();
            masters.all().forEach((master) -> master.command("SCRIPT", "FLUSH"));
            LockHandle handle = engine.acquire(LockRequest.of("scripts:after", Duration.ZERO, null));
            String owner = handle.token().substring(0, handle.token().indexOf(':') + 1);
            await().untilAsserted(() -> assertThat(masters.all())
                .allSatisfy((master) -> assertThat((String) master.command("GET", "scripts:after")).startsWith(owner)));
            handle.close();
            await().untilAsserted(() -> assertThat(masters.all())
                .allSatisfy((master) -> assertThat(master.command("EXISTS", "scripts:after")).isEqualTo(0L)));
        }
    }

    @Test
    void anErrorReplyFromEveryNodeFailsTheTakeAtOnceAndGivesTheSlotsBack() {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "");
        masters.all().forEach((master) -> master.command("HSET", "errors:hash", "field", "value"));
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            // The acquire script's GET of a hash is an error reply on every node: no majority can answer.
            assertThatThrownBy(() -> engine.acquire(LockRequest.of("errors:hash", Duration.ZERO, null)))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("Only 0 of 5 Redlock nodes answered");
            await().untilAsserted(() -> assertThat(store.nodes())
                .allSatisfy((node) -> assertThat(node.callsOnTheirWay()).as("%s", node).isZero()));
        }
    }
}
