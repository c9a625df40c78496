package io.github.redislock.test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.TaskThreads;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.actuate.endpoint.Show;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the endpoint and the holder view show of shared keys: each holder here with its mode or permit count, and,
 * for a key asked about, its kind and every holder named across instances.
 */
@Timeout(60)
class SharedLocksViewTest {

    private final InstanceInfo self = InstanceInfo.current("documents");

    private final LockEngine locks = new LockEngine(new InMemoryLockStore("app:"), Duration.ofSeconds(30),
            LockLossListener.NONE);

    private final RedisLocksEndpoint endpoint = new RedisLocksEndpoint(this.locks, Show.ALWAYS, Set.of());

    @AfterEach
    void stop() {
        this.locks.close();
    }

    @Test
    void readersAreListedOneByOneWithTheirModeAndTheHolderViewNamesEach() throws Exception {
        this.locks.publishInstance(this.self);
        LockRequest read = LockRequest.of("doc:1", Duration.ZERO, null).mode(LockMode.READ);
        try (LockHandle mine = this.locks.acquire(read)) {
            LockHandle theirs = CompletableFuture.supplyAsync(() -> this.locks.acquire(read), TaskThreads.own()).get(10, TimeUnit.SECONDS);
            assertThat(this.endpoint.locks().held()).hasSize(2).allSatisfy((held) -> {
                assertThat(held.key()).isEqualTo("app:doc:1");
                assertThat(held.mode()).isEqualTo("READ");
                assertThat(held.permits()).isEqualTo(1);
            });
            RedisLocksEndpoint.LockViewDescriptor view = this.endpoint.lock("doc:1");
            assertThat(view.state()).isEqualTo(LockInspection.State.HELD.name());
            assertThat(view.mode()).isEqualTo("READ");
            assertThat(view.holders()).extracting(RedisLocksEndpoint.HoldingDescriptor::fencingToken)
                .containsExactlyInAnyOrder(mine.fencingToken(), theirs.fencingToken());
            assertThat(view.holders()).allSatisfy((holding) -> {
                assertThat(holding.holder().application()).isEqualTo("documents");
                assertThat(holding.holder().instance()).isEqualTo(this.self.id());
            });
            assertThat(view.fencingToken()).isEqualTo(theirs.fencingToken());
            theirs.close();
        }
        assertThat(this.endpoint.lock("doc:1").holders()).isEmpty();
    }

    @Test
    void aSemaphoresPermitsShowTheirCountAndItsWaitersAreCounted() throws Exception {
        LockRequest permit = LockRequest.of("partner:api", Duration.ofSeconds(20), null).permits(2);
        try (LockHandle one = this.locks.acquire(permit)) {
            LockHandle two = CompletableFuture.supplyAsync(() -> this.locks.acquire(permit), TaskThreads.own()).get(10, TimeUnit.SECONDS);
            CompletableFuture<LockHandle> third = CompletableFuture.supplyAsync(() -> this.locks.acquire(permit), TaskThreads.own());
            org.awaitility.Awaitility.await().until(() -> this.endpoint.lock("partner:api").waiting() == 1);
            RedisLocksEndpoint.LockViewDescriptor view = this.endpoint.lock("partner:api");
            assertThat(view.permits()).isEqualTo(2);
            assertThat(view.mode()).isEqualTo("WRITE");
            assertThat(view.holders()).hasSize(2);
            assertThat(this.endpoint.locks().held()).allSatisfy((held) -> assertThat(held.permits()).isEqualTo(2));
            two.close();
            third.get(10, TimeUnit.SECONDS).close();
        }
    }
}
