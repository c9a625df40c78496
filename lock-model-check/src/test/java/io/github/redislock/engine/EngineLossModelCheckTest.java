package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.ManualScheduler;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;

import static io.github.redislock.modelcheck.Threads.inParallel;
import static io.github.redislock.modelcheck.Threads.invocations;
import static io.github.redislock.modelcheck.Threads.require;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's per-key entry ({@link Entry}) and the renewal scheduler's lost/held transitions ({@link Renewer}),
 * model-checked through the real {@link LockEngine}: one thread takes a key and releases it, a second ticks the
 * renewal scheduler (a round that extends the lock, or finds it not held), a third has the store lose the key and
 * report it. Lincheck runs them under every interleaving it explores; the invariants, from the entry's state
 * machine: a loss is signalled at most once, and exactly when the handle says lost; a loss the store reported before
 * the release began is signalled (a report that comes while the take is still returning is remembered, not
 * dropped); a released lock is never reported lost; the key is released in the store exactly once; nothing is held
 * after the release.
 * <p>
 * Runs up to JDK 24: on JDK 25, Lincheck 3.7 (the newest) passes this class's seeded defect without finding it (both
 * runs tried), where JDK 17 finds it in every run, so its passing checks there would show nothing (the local line's
 * check, whose seeded defect JDK 25 does find, runs there).
 */
@EnabledForJreRange(maxVersion = 24, disabledReason = "Lincheck 3.7 misses this check's seeded defect on JDK 25")
class EngineLossModelCheckTest {

    @Test
    void aLossReportedWhileTheKeyIsTakenRenewedOrReleasedIsSignalledOnceAndOnlyWhileHeld() {
        Lincheck.runConcurrentTest(invocations(1_000), () -> scenario(Extension.EXTENDED));
    }

    @Test
    void aRenewalRoundThatFindsTheKeyGoneRacesTheReleaseAndTheStoresOwnReportSafely() {
        Lincheck.runConcurrentTest(invocations(1_000), () -> scenario(Extension.NOT_HELD));
    }

    /**
     * The checker is not blind: an entry whose HELD → LOST move is a check-then-set lets a renewal round and the
     * store's own report both signal one loss.
     */
    @Test
    void theCheckerFindsAnEntryThatSignalsALossTwice() {
        assertThatThrownBy(() -> Lincheck.runConcurrentTest(invocations(1_000), () -> {
            SeededEntryState entry = new SeededEntryState();
            AtomicInteger signals = new AtomicInteger();
            Runnable detector = () -> {
                if (entry.markLost()) {
                    signals.incrementAndGet();
                }
            };
            inParallel(detector, detector, entry::markReleased);
            require(signals.get() <= 1, "a loss signalled " + signals.get() + " times");
        })).isInstanceOf(AssertionError.class).hasMessageContaining("a loss signalled 2 times");
    }

    private static void scenario(Extension renewal) {
        OneKeyStore store = new OneKeyStore(renewal);
        ManualScheduler scheduler = new ManualScheduler();
        AtomicInteger signals = new AtomicInteger();
        LockEngine engine = new LockEngine(store, Duration.ofSeconds(30),
                (key, token, fence, how) -> signals.incrementAndGet(), scheduler);
        AtomicBoolean reported = new AtomicBoolean();
        boolean[] reportedBeforeRelease = new boolean[1];
        LockHandle[] handle = new LockHandle[1];
        inParallel(() -> {
            handle[0] = engine.acquire(LockRequest.of("k", Duration.ZERO, null));
            reportedBeforeRelease[0] = reported.get();
            handle[0].close();
        }, () -> {
            store.forget();
            reported.set(true);
        }, () -> {
            store.awaitTaken();
            scheduler.tick();
        });
        require(signals.get() <= 1, "a loss signalled " + signals.get() + " times");
        require(handle[0].isLost() == (signals.get() == 1),
                "the handle says lost " + handle[0].isLost() + " after " + signals.get() + " signal(s)");
        require(!reportedBeforeRelease[0] || signals.get() == 1,
                "a loss the store reported before the release began was not signalled");
        require(store.releases() == 1, "the key released " + store.releases() + " times");
        require(!handle[0].isHeld(), "held after its release");
        engine.close();
    }
}
