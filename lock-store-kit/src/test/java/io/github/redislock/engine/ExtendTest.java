package io.github.redislock.engine;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.ManualScheduler;
import io.github.redislock.testsupport.LineIndependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A holder's extension ({@link Extender}) as the engine decides it, over a store that records its calls
 * ({@link ScriptedStore}); what every real store makes of it is in the kit's {@code ExtendChecks}.
 */
@LineIndependent
class ExtendTest {

    private final ScriptedStore store = ScriptedStore.withLeases();

    private final ManualScheduler scheduler = new ManualScheduler();

    private final List<String> lost = new CopyOnWriteArrayList<>();

    private final LockEngine engine = new LockEngine(this.store, Duration.ofSeconds(30),
            (key, token, fence, detection) -> this.lost.add(key + " " + detection), this.scheduler);

    private LockHandle renewed(String key) {
        return this.engine.acquire(LockRequest.of(key, Duration.ZERO, null));
    }

    @Test
    void anExtendedRenewedLockIsInNoLaterRenewalRound() {
        LockHandle extended = renewed("a");
        LockHandle other = renewed("b");
        assertThat(extended.extend(Duration.ofMinutes(1))).isTrue();
        assertThat(this.store.extensions).containsExactly(List.of("a"));
        this.scheduler.tick();
        assertThat(this.store.extensions).containsExactly(List.of("a"), List.of("b"));
        assertThat(this.engine.state().held()).filteredOn((held) -> held.key().equals("a"))
            .singleElement()
            .satisfies((held) -> {
                assertThat(held.renewed()).isFalse();
                assertThat(held.leaseTime()).isEqualTo(Duration.ofMinutes(1));
            });
        extended.close();
        other.close();
    }

    /**
     * A renewal round on its way when the holder extends its lock: the extension is sent only once the round has
     * returned, so that the renewed lease cannot reach the store after the fixed one.
     */
    @Test
    void anExtensionWaitsForTheRenewalRoundOnItsWay() throws Exception {
        LockHandle held = renewed("a");
        CountDownLatch roundSent = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        this.store.duringNextExtension(() -> {
            roundSent.countDown();
            awaitQuietly(answer);
        });
        Thread renewing = new Thread(this.engine::renewNow);
        renewing.start();
        assertThat(roundSent.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> extension = new CompletableFuture<>();
        Thread extending = new Thread(() -> extension.complete(held.extend(Duration.ofMinutes(2))));
        extending.start();
        await().atMost(Duration.ofSeconds(30))
            .until(() -> extending.getState() == Thread.State.BLOCKED || extension.isDone());
        assertThat(extension).as("the extension, while the round is on its way").isNotDone();
        assertThat(this.store.extensions).hasSize(1);
        answer.countDown();
        assertThat(extension.get(30, TimeUnit.SECONDS)).isTrue();
        renewing.join();
        assertThat(this.store.extensions).containsExactly(List.of("a"), List.of("a"));
        held.close();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void anExtensionTheStoreCannotAnswerThrowsAndTheLockIsRenewedAgain() {
        LockHandle held = renewed("a");
        this.store.failNextExtension(new LockException("store down"));
        assertThatThrownBy(() -> held.extend(Duration.ofMinutes(1))).isInstanceOf(LockException.class)
            .hasMessage("store down");
        this.scheduler.tick();
        assertThat(this.store.extensions).containsExactly(List.of("a"), List.of("a"));
        assertThat(held.isHeld()).isTrue();
        held.close();
    }

    @Test
    void anExtensionAnsweredUnknownThrowsNamingTheLock() {
        LockHandle held = renewed("a");
        this.store.answerUnknownFor("a");
        assertThatThrownBy(() -> held.extend(Duration.ofMinutes(1))).isInstanceOf(LockException.class)
            .hasMessage("The store could not confirm the extension of lock 'a'; it keeps the lease that ends first "
                    + "of its old one and the one asked for");
        held.close();
    }

    @Test
    void anExtensionOfALockTheStoreNoLongerHoldsIsFalseAndTellsTheLossOnce() {
        LockHandle held = renewed("a");
        this.store.lose("a");
        assertThat(held.extend(Duration.ofMinutes(1))).isFalse();
        assertThat(held.extend(Duration.ofMinutes(1))).isFalse();
        assertThat(held.isLost()).isTrue();
        assertThat(this.lost).containsExactly("a RENEWAL");
        assertThat(this.store.extensions).hasSize(1);
        held.close();
    }

    @Test
    void aClosedHandleCannotBeExtended() {
        LockHandle held = renewed("a");
        held.close();
        assertThatIllegalStateException().isThrownBy(() -> held.extend(Duration.ofMinutes(1)))
            .withMessage("Lock 'a' was released by this handle; it cannot be extended");
    }

    @Test
    void aLeaseOutOfRangeIsRefusedBeforeAnythingIsSent() {
        LockHandle held = renewed("a");
        assertThatIllegalArgumentException().isThrownBy(() -> held.extend(Duration.ZERO))
            .withMessage("An extension's lease must be from 1 ms to 30 days, got PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> held.extend(null))
            .withMessage("An extension's lease must be from 1 ms to 30 days, got null");
        assertThat(this.store.extensions).isEmpty();
        held.close();
    }

    @Test
    void aHoldAtLeastLongerThanTheLeaseIsRefused() {
        LockHandle held = renewed("a");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> held.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
            .withMessage("An extension's holdAtLeast must be from zero to its lease (PT1S), got PT2S: the lock would "
                    + "expire before the minimum");
        held.close();
    }

    @Test
    void aMultiKeyHandleExtendsEveryKey() {
        LockHandle both = this.engine.acquire(LockRequest.of(List.of("a", "b"), Duration.ZERO, null));
        assertThat(both.extend(Duration.ofMinutes(1))).isTrue();
        assertThat(this.store.extensions).containsExactly(List.of("a"), List.of("b"));
        both.close();
    }

    @Test
    void aHandleOfAnotherProviderSaysItCannotExtend() {
        // A handle of a provider of the application's own, written before extensions existed: only the interface's
        // default methods do anything.
        LockHandle foreign = (LockHandle) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { LockHandle.class },
                (proxy, method, arguments) -> method.isDefault()
                        ? InvocationHandler.invokeDefault(proxy, method, arguments) : null);
        assertThatThrownBy(() -> foreign.extend(Duration.ofSeconds(1)))
            .isInstanceOf(UnsupportedOperationException.class)
            .hasMessage(foreign.getClass().getName() + " does not implement extend; the handles of this library's "
                    + "LockEngine do");
    }
}
