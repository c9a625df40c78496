package io.github.redislock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.test.InMemoryLockStore;
import io.github.redislock.testsupport.ManualScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;
import io.github.redislock.testsupport.TaskThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's rules for shared keys ({@link LockEngine#enterAgain}, {@link HeldEntries}): what a thread may enter
 * again of what it holds, the refusals that come at once and leave nothing, one entry per holder here, and the
 * request's checks. What the stores make of shared keys is the kit's ({@code PermitChecks}, {@code ReadWriteChecks}).
 */
@LineIndependent
class SharedReentryTest {

    private final InMemoryLockStore store = new InMemoryLockStore("t:");

    private final LockEngine engine = new LockEngine(this.store, Duration.ofSeconds(30), LockLossListener.NONE,
            new ManualScheduler());

    @AfterEach
    void close() {
        this.engine.close();
    }

    private static LockRequest write(String key) {
        return LockRequest.of(key, Duration.ZERO, null);
    }

    private static LockRequest read(String key) {
        return write(key).mode(LockMode.READ);
    }

    private static LockRequest permits(String key, int permits) {
        return write(key).permits(permits);
    }

    @Test
    void aNestedPermitOfTheSameSemaphoreEntersTheOneHeld() throws Exception {
        try (LockHandle outer = this.engine.acquire(permits("pool", 2))) {
            try (LockHandle inner = this.engine.acquire(permits("pool", 2))) {
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            }
            // The thread holds one permit, so the second is another thread's to take.
            LockHandle other = CompletableFuture.supplyAsync(() -> this.engine.acquire(permits("pool", 2)), TaskThreads.own())
                .get(10, TimeUnit.SECONDS);
            assertThat(other.fencingToken()).isGreaterThan(outer.fencingToken());
            assertThat(this.engine.state().held()).hasSize(2)
                .allSatisfy((held) -> assertThat(held.sharing()).isEqualTo(Sharing.permits(2)));
            other.close();
        }
        assertThat(this.engine.state().held()).isEmpty();
    }

    @Test
    void aNestedRequestForAnotherPermitCountIsRefusedNamingBoth() {
        try (LockHandle outer = this.engine.acquire(permits("pool", 3))) {
            assertThatThrownBy(() -> this.engine.acquire(permits("pool", 2))).isInstanceOf(LockException.class)
                .hasMessageContaining("3 permits").hasMessageContaining("2 permits");
            assertThatThrownBy(() -> this.engine.acquire(write("pool"))).isInstanceOf(LockException.class)
                .hasMessageContaining("3 permits").hasMessageContaining("1 permit");
            assertThat(outer.isHeld()).isTrue();
        }
    }

    @Test
    void anUpgradeInsideAMultiKeyRequestUndoesTheKeysTakenBeforeIt() {
        try (LockHandle reading = this.engine.acquire(read("b"))) {
            assertThatThrownBy(() -> this.engine.acquire(LockRequest.of(List.of("a", "b"), Duration.ZERO, null)))
                .isInstanceOf(LockException.class).hasMessageContaining("upgrade");
            assertThat(this.store.inspect("t:a").state()).isEqualTo(LockInspection.State.FREE);
            assertThat(reading.isHeld()).isTrue();
        }
    }

    @Test
    void aReadLockInsideAWriteLockEntersItAndANonReentrantReaderWaits() throws Exception {
        try (LockHandle writing = this.engine.acquire(write("doc"))) {
            try (LockHandle reading = this.engine.acquire(read("doc"))) {
                assertThat(reading.fencingToken()).isEqualTo(writing.fencingToken());
            }
            assertThatThrownBy(() -> this.engine.acquire(read("doc").nonReentrant()))
                .isInstanceOf(LockNotAcquiredException.class);
        }
    }

    @Test
    void readersOfOneApplicationShareTheKeyEachWithAnEntryOfItsOwn() throws Exception {
        try (LockHandle mine = this.engine.acquire(read("doc"))) {
            LockHandle theirs = CompletableFuture.supplyAsync(() -> this.engine.acquire(read("doc")), TaskThreads.own())
                .get(10, TimeUnit.SECONDS);
            assertThat(theirs.fencingToken()).isGreaterThan(mine.fencingToken());
            theirs.close();
            assertThat(mine.isHeld()).isTrue();
            assertThat(this.engine.state().held()).singleElement()
                .satisfies((held) -> assertThat(held.sharing()).isEqualTo(Sharing.READ));
        }
    }

    @Test
    void aStoreOfExclusiveLocksOnlyRefusesSharedRequestsBeforeSendingAnything() {
        ScriptedStore exclusiveOnly = ScriptedStore.exclusiveOnly();
        try (LockEngine engine = new LockEngine(exclusiveOnly, Duration.ofSeconds(30), LockLossListener.NONE,
                new ManualScheduler())) {
            assertThatThrownBy(() -> engine.acquire(read("doc"))).isInstanceOf(LockException.class)
                .hasMessageContaining("a read lock").hasMessageContaining("keeps exclusive locks only");
            assertThatThrownBy(() -> engine.acquire(permits("pool", 4))).isInstanceOf(LockException.class)
                .hasMessageContaining("a semaphore of 4 permits");
            assertThat(exclusiveOnly.takes).isEmpty();
        }
    }

    @Test
    void aRequestRefusesBadCountsAndModesWithMessagesThatSayWhy() {
        LockRequest request = write("k");
        assertThatIllegalArgumentException().isThrownBy(() -> request.permits(0))
            .withMessage("permits must be at least 1: 0");
        assertThatIllegalArgumentException().isThrownBy(() -> request.permits(2).mode(LockMode.READ))
            .withMessageContaining("A read lock has no permit count, but this request asks for 2 permits");
        assertThatIllegalArgumentException().isThrownBy(() -> request.mode(LockMode.READ).permits(2))
            .withMessageContaining("A read lock has no permit count (permits 2)");
        assertThatIllegalArgumentException().isThrownBy(() -> request.mode(null))
            .withMessage("mode must not be null");
        assertThat(request.permits(3).nonReentrant().holdAtLeast(Duration.ofSeconds(1)).permits()).isEqualTo(3);
        assertThat(request.mode(LockMode.READ).nonReentrant().mode()).isEqualTo(LockMode.READ);
        assertThat(request.permits(3).toString()).contains("3 permits");
    }
}
