package io.github.redislock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TaskThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A registry's locks as Spring Integration's own behave, on one Redis: two registries stand for two applications,
 * and the other registry's attempts (or Redis itself) say who holds a key, never the holder's word.
 */
class DistributedLockRegistryTest {

    /** The lease of the registry under test: short, so that its renewal is crossed many times in a test. */
    private static final Duration LEASE = Duration.ofMillis(1500);

    /**
     * The witness's lease: long, because the witness's own renewal is not under test, and a renewal that a loaded
     * machine delays past a short lease would end the witness's lock (told as a loss) and fail a test of another
     * thing.
     */
    private static final Duration WITNESS_LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private RedisApplications applications;

    private DistributedLockRegistry mine;

    private DistributedLockRegistry other;

    @BeforeEach
    void start() {
        this.applications = new RedisApplications(redis.server());
        this.mine = this.applications.registry(LEASE);
        this.other = this.applications.registry(WITNESS_LEASE);
        // As applications that have run a while: connections open, hand-off channels subscribed.
        for (DistributedLockRegistry registry : new DistributedLockRegistry[] { this.mine, this.other }) {
            Lock warmUp = registry.obtain("warm-up");
            warmUp.lock();
            warmUp.unlock();
        }
    }

    @AfterEach
    void stop() throws Exception {
        this.applications.close();
    }

    @Test
    void aThreadLocksAgainAtOnceAndTheKeyIsReleasedAtItsLastUnlock() throws Exception {
        Lock lock = this.mine.obtain("report");
        lock.lock();
        lock.lock();
        lock.unlock();
        assertThat(this.other.obtain("report").tryLock()).isFalse();
        lock.unlock();
        Lock theirs = this.other.obtain("report");
        assertThat(theirs.tryLock()).isTrue();
        theirs.unlock();
    }

    @Test
    void obtainGivesOneLockPerKey() {
        assertThat(this.mine.obtain("report")).isSameAs(this.mine.obtain("report"))
            .isNotSameAs(this.mine.obtain("invoice"));
    }

    @Test
    void aThreadThatDoesNotHoldTheLockCannotUnlockIt() throws Exception {
        Lock lock = this.mine.obtain("report");
        lock.lock();
        Throwable failure = CompletableFuture.runAsync(lock::unlock, TaskThreads.own()).handle((done, ex) -> ex.getCause()).get(10,
                TimeUnit.SECONDS);
        assertThat(failure).isInstanceOf(IllegalMonitorStateException.class)
            .hasMessageStartingWith("Lock 'report' is not held by this thread (")
            .hasMessageEndingWith("); only the thread that locked it may unlock it");
        assertThat(this.other.obtain("report").tryLock()).isFalse();
        lock.unlock();
    }

    @Test
    void anUnlockedLockCannotBeUnlocked() {
        assertThatExceptionOfType(IllegalMonitorStateException.class)
            .isThrownBy(() -> this.mine.obtain("report").unlock())
            .withMessageStartingWith("Lock 'report' is not held by this thread");
    }

    @Test
    void conditionsAreNotSupported() {
        assertThatExceptionOfType(UnsupportedOperationException.class)
            .isThrownBy(() -> this.mine.obtain("report").newCondition())
            .withMessage("Conditions are not supported by the locks of a DistributedLockRegistry (lock 'report')");
    }

    @Test
    void aLockTakenByLockIsRenewedPastItsLeaseWhileAnotherRegistryWaitsInVain() throws Exception {
        Lock lock = this.mine.obtain("report");
        lock.lock();
        long start = System.nanoTime();
        assertThat(this.other.obtain("report").tryLock(LEASE.toMillis() * 3, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(LEASE.multipliedBy(3));
        lock.unlock();
        assertThat(this.applications.losses).isEmpty();
    }

    @Test
    void aTtlLockEndsWhenItRunsOutAndItsUnlockThrowsAfterTheLossWasTold() throws Exception {
        var lock = this.mine.obtain("report");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
        Lock theirs = this.other.obtain("report");
        assertThat(theirs.tryLock(10, TimeUnit.SECONDS)).isTrue();
        assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock)
            .withMessage("Lock 'report' was lost before it was unlocked (its lease ran out, or the store no longer "
                    + "held it): another holder may have run the same critical section, so the data it protects "
                    + "may be compromised");
        assertThat(this.applications.losses).containsExactly("report RELEASE");
        assertThat(redis.command("EXISTS", "report")).isEqualTo(1L);
        theirs.unlock();
    }

    @Test
    void aLockLostWhileRenewedIsToldAndItsUnlockThrows() {
        Lock lock = this.mine.obtain("report");
        lock.lock();
        redis.command("DEL", "report");
        await().atMost(Duration.ofSeconds(10)).until(() -> !this.applications.losses.isEmpty());
        assertThat(this.applications.losses).containsExactly("report RENEWAL");
        assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
    }

    @Test
    void renewLockWithATtlKeepsAFixedLeasePastItsFirstEnd() throws Exception {
        var lock = this.mine.obtain("report");
        lock.lock(Duration.ofMillis(300));
        this.mine.renewLock("report", Duration.ofSeconds(30));
        assertThat(this.other.obtain("report").tryLock(900, TimeUnit.MILLISECONDS)).isFalse();
        lock.unlock();
        assertThat(this.applications.losses).isEmpty();
    }

    @Test
    void renewLockByAThreadThatDoesNotHoldItThrows() {
        assertThatIllegalStateException().isThrownBy(() -> this.mine.renewLock("report"))
            .withMessageStartingWith("Lock 'report' is not held by this thread (")
            .withMessageEndingWith("); only its holder may renew it");
    }

    @Test
    void renewLockOfALostLockThrows() throws Exception {
        var lock = this.mine.obtain("report");
        lock.lock(Duration.ofMillis(200));
        Lock theirs = this.other.obtain("report");
        assertThat(theirs.tryLock(10, TimeUnit.SECONDS)).isTrue();
        assertThatIllegalStateException().isThrownBy(() -> this.mine.renewLock("report"))
            .withMessage("Could not renew lock 'report': it was lost (its lease ran out, or the store no longer held "
                    + "it)");
        theirs.unlock();
    }

    @Test
    void aTtlOutOfRangeIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.mine.obtain("report").lock(Duration.ZERO))
            .withMessage("The ttl of lock 'report' must be from 1 ms to 30 days, got PT0S");
    }

    @Test
    void lockInterruptiblyAnswersAnInterruptAndHoldsNothing() throws Exception {
        Lock theirs = this.other.obtain("report");
        theirs.lock();
        Lock lock = this.mine.obtain("report");
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                lock.lockInterruptibly();
            }
            catch (Throwable ex) {
                outcome.set(ex);
            }
            done.countDown();
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() != Thread.State.RUNNABLE);
        waiter.interrupt();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        theirs.unlock();
        // The interrupted thread holds nothing here: another thread of this application gets the lock.
        assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
    }

    @Test
    void expiringForgetsLocksNobodyHolds() throws Exception {
        Lock unused = this.mine.obtain("unused");
        unused.lock();
        unused.unlock();
        Lock held = this.mine.obtain("held");
        held.lock();
        long now = System.currentTimeMillis();
        await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() > now);
        this.mine.expireUnusedOlderThan(0);
        assertThat(this.mine.obtain("unused")).isNotSameAs(unused);
        assertThat(this.mine.obtain("held")).isSameAs(held);
        held.unlock();
    }

    @Test
    void keysAreStrings() {
        assertThatIllegalArgumentException().isThrownBy(() -> this.mine.obtain(42))
            .withMessage("The lock keys of a DistributedLockRegistry are Strings, got java.lang.Integer");
    }

    @Test
    void aRegistryNeedsALeaseItCanRenew() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new DistributedLockRegistry(this.applications.engine(), Duration.ofMillis(2)))
            .withMessage("The leaseTime of a DistributedLockRegistry must be from 3 ms to 30 days, got PT0.002S");
    }
}
