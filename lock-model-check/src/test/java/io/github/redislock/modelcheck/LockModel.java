package io.github.redislock.modelcheck;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.ManualScheduler;

/**
 * Runs one sequence of {@link Action}s against a {@link Backend} through real engines, one per application, each
 * on a thread of its own (so that taking again while holding is re-entering), and checks after every step what
 * must hold whatever the sequence:
 * <ul>
 * <li><b>never two holders</b>: two applications hold the key ({@code isHeld()}) at once, a writer among them, only
 * when the backend forgot the key under the earlier one (which no client can prevent, and which the rule on losses
 * bounds); readers hold it together;</li>
 * <li><b>fences increase</b>: a fresh writer's fencing token is above every earlier one's, a fresh reader's above
 * every earlier writer's, forgotten keys included;</li>
 * <li><b>nothing left</b>: once no application holds anything, the backend keeps nothing for the key (the key, a
 * queue entry), whatever was taken, failed, answered late or forgotten;</li>
 * <li><b>a lost lock is told before its lease could run out by its holder's clock</b>: {@code isHeld()} is false
 * once a lease has passed since the last moment the store could have extended it (its take, a renewal round before
 * the key was forgotten), and a renewal round after the backend forgot the key reports it lost;</li>
 * <li>a loss is signalled at most once per acquisition.</li>
 * </ul>
 * Times are this JVM's monotonic clock; the checks leave {@link #MARGIN} for the engine's own steps.
 */
public final class LockModel implements AutoCloseable {

    static final String KEY = "k";

    /** The renewed lease, and the fixed one. */
    static final Duration LEASE = Duration.ofMillis(600);

    static final Duration FIXED_LEASE = Duration.ofMillis(400);

    /** Slack for the checks on time: a step of the engine between the moment checked and the check itself. */
    static final long MARGIN = TimeUnit.MILLISECONDS.toNanos(60);

    private final Backend backend;

    private final List<App> apps = new ArrayList<>();

    private final List<String> violations = new ArrayList<>();

    private final List<String> steps = new ArrayList<>();

    private long highestFence = Long.MIN_VALUE;

    private long highestWriterFence = Long.MIN_VALUE;

    public LockModel(Backend backend, int applications) {
        this.backend = backend;
        for (int i = 0; i < applications; i++) {
            this.apps.add(new App(i));
        }
    }

    /** Seeds a defect into every application's store: releases that leave the key (see {@link LateStore}). */
    LockModel seedLostReleases() {
        this.apps.forEach((app) -> app.store.seedLostReleases());
        return this;
    }

    /** Runs the actions, checking after each; the rules broken, each with the steps that led there. */
    public List<String> run(List<Action> actions) {
        for (Action action : actions) {
            this.steps.add(action.toString());
            apply(action);
            check();
        }
        for (App app : this.apps) {
            while (!app.held.isEmpty()) {
                this.steps.add("end: release(" + app.index + ")");
                app.release();
            }
        }
        check();
        return this.violations;
    }

    private void apply(Action action) {
        if (action instanceof Action.Take take) {
            this.apps.get(take.app()).take(take.fixedLease(), take.read());
        }
        else if (action instanceof Action.Release release) {
            this.apps.get(release.app()).release();
        }
        else if (action instanceof Action.Forget) {
            this.backend.forget(KEY);
            long now = System.nanoTime();
            this.apps.forEach((app) -> app.held.forEach((held) -> held.forgotten(now)));
        }
        else if (action instanceof Action.Renew renew) {
            this.apps.get(renew.app()).renew();
        }
        else if (action instanceof Action.Wait wait) {
            sleep(wait.millis());
        }
        else if (action instanceof Action.AnswerLate late) {
            this.apps.get(late.app()).store.answerNextTakeLate(late.millis());
        }
    }

    private void check() {
        long now = System.nanoTime();
        List<Held> holding = new ArrayList<>();
        for (App app : this.apps) {
            Held outer = app.held.peekLast();
            if (outer != null && outer.handle.isHeld()) {
                holding.add(outer);
            }
            for (Held held : app.held) {
                if (held.handle.isHeld() && now - held.mustEndBy() > MARGIN) {
                    violate("app " + app.index + " says held " + (now - held.mustEndBy()) / 1_000_000
                            + " ms after its lease could have run out by its own clock");
                }
                if (held.renewedAfterForget && !held.handle.isLost()) {
                    violate("app " + app.index + "'s renewal round after the key was forgotten did not report it lost");
                }
            }
            if (app.signals.get() > app.acquisitions) {
                violate("app " + app.index + ": " + app.signals.get() + " loss signals for " + app.acquisitions
                        + " acquisitions");
            }
        }
        if (holding.size() > 1 && holding.stream().anyMatch((held) -> !held.read)
                && holding.stream().noneMatch((held) -> held.forgottenAt != Long.MAX_VALUE)) {
            violate(holding.size() + " applications hold the key at once, a writer among them, and the backend "
                    + "forgot nothing");
        }
        if (this.apps.stream().allMatch((app) -> app.held.isEmpty())) {
            List<String> residue = this.backend.residue(KEY);
            if (!residue.isEmpty()) {
                violate("nothing is held, yet the backend keeps " + residue);
            }
        }
    }

    private void violate(String rule) {
        this.violations.add(rule + " (after " + String.join(", ", this.steps) + ")");
    }

    @Override
    public void close() {
        for (App app : this.apps) {
            app.close();
        }
        this.backend.close();
    }

    private static void sleep(long millis) {
        try {
            // Time passing is the step: leases run meanwhile.
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** One application: its store, engine, renewal scheduler, thread, and what it holds (innermost first). */
    private final class App {

        private final int index;

        private final LateStore store;

        private final ManualScheduler renewals = new ManualScheduler();

        private final LockEngine engine;

        private final ExecutorService thread = Executors.newSingleThreadExecutor();

        private final Deque<Held> held = new ArrayDeque<>();

        private final AtomicInteger signals = new AtomicInteger();

        private int acquisitions;

        App(int index) {
            this.index = index;
            this.store = new LateStore(LockModel.this.backend.newStore());
            this.engine = new LockEngine(this.store, LEASE, (key, token, fence, how) -> this.signals.incrementAndGet(),
                    this.renewals);
        }

        void take(boolean fixedLease, boolean read) {
            LockRequest request = LockRequest.of(KEY, Duration.ZERO, fixedLease ? FIXED_LEASE : null)
                .mode(read ? LockMode.READ : LockMode.WRITE);
            LockHandle handle;
            try {
                handle = on(() -> this.engine.acquire(request));
            }
            catch (LockNotAcquiredException ex) {
                return;
            }
            catch (LockException ex) {
                if (!read && this.held.stream().anyMatch((held) -> held.read)) {
                    // An upgrade inside an open read acquisition (held or not by now), refused at once: as promised.
                    return;
                }
                throw ex;
            }
            // The store started the lease at the latest when its reply came, before this returned.
            long returned = System.nanoTime();
            Held outer = this.held.peekLast();
            // Entered again, or a fresh lock (when what this thread held had run out): the token tells.
            boolean nested = outer != null && handle.fencingToken() == outer.handle.fencingToken();
            if (!nested) {
                this.acquisitions++;
                // A writer's token is above every earlier one; a reader's above every earlier writer's (readers
                // holding together are not ordered among themselves).
                long floor = read ? LockModel.this.highestWriterFence : LockModel.this.highestFence;
                if (handle.fencingToken() <= floor) {
                    violate("app " + this.index + " got fencing token " + handle.fencingToken() + " as a "
                            + (read ? "reader" : "writer") + ", not above " + floor);
                }
                LockModel.this.highestFence = Math.max(LockModel.this.highestFence, handle.fencingToken());
                if (!read) {
                    LockModel.this.highestWriterFence = Math.max(LockModel.this.highestWriterFence,
                            handle.fencingToken());
                }
            }
            this.held.push(new Held(handle, nested ? outer : null, returned,
                    (fixedLease ? FIXED_LEASE : LEASE).toNanos(), !fixedLease, nested ? outer.read : read));
        }

        void release() {
            Held innermost = this.held.poll();
            if (innermost != null) {
                on(() -> {
                    innermost.handle.close();
                    return null;
                });
            }
        }

        /** A renewal round: it may extend a renewed lock the backend still has, from the moment it starts. */
        void renew() {
            this.renewals.tick();
            // An extension the round sent began the lease at the latest when the round returned.
            long sent = System.nanoTime();
            Held outer = this.held.peekLast();
            if (outer != null && outer.renewed) {
                if (outer.forgottenAt != Long.MAX_VALUE) {
                    outer.renewedAfterForget = true;
                }
                else {
                    outer.extendedFrom = Math.max(outer.extendedFrom, sent);
                }
            }
        }

        private <T> T on(Callable<T> call) {
            try {
                return this.thread.submit(call).get(30, TimeUnit.SECONDS);
            }
            catch (ExecutionException ex) {
                if (ex.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException(ex.getCause());
            }
            catch (InterruptedException | TimeoutException ex) {
                throw new IllegalStateException("app " + this.index + " did not answer", ex);
            }
        }

        void close() {
            this.engine.close();
            this.thread.shutdownNow();
        }
    }

    /** One acquisition, nested ones pointing at the outermost of their application, whose lease they share. */
    private static final class Held {

        final LockHandle handle;

        final Held outer;

        /** When the lease that is counted began at the latest: the take's reply, or a renewal round's end. */
        long extendedFrom;

        final long leaseNanos;

        final boolean renewed;

        /** Whether the application holds the key as a reader (a nested read inside a write lock holds it writing). */
        final boolean read;

        /** When the backend forgot the key after this acquisition; {@code Long.MAX_VALUE}: it did not. */
        long forgottenAt = Long.MAX_VALUE;

        /** Whether a renewal round ran after the backend forgot the key. */
        boolean renewedAfterForget;

        Held(LockHandle handle, Held outer, long takenFrom, long leaseNanos, boolean renewed, boolean read) {
            this.handle = handle;
            this.read = read;
            this.outer = outer;
            this.extendedFrom = takenFrom;
            this.leaseNanos = leaseNanos;
            this.renewed = renewed;
        }

        void forgotten(long now) {
            this.forgottenAt = Math.min(this.forgottenAt, now);
        }

        /** The latest moment its lease can still run by the holder's clock. */
        long mustEndBy() {
            Held lease = (this.outer != null) ? this.outer : this;
            return lease.extendedFrom + lease.leaseNanos;
        }
    }
}
