package io.github.redislock.storekit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;

/**
 * One application of a check: a store made by the fixture, the {@link LockEngine} over it, and every loss the
 * engine told, in order. Made by {@link Applications#start}.
 */
public final class Application {

    private final String name;

    private final LockStore store;

    private final StoreFixture fixture;

    private final LockEngine engine;

    private final List<Loss> losses = new CopyOnWriteArrayList<>();

    private volatile boolean crashed;

    Application(String name, StoreFixture fixture, Duration renewedLease) {
        this.name = name;
        this.fixture = fixture;
        this.store = fixture.newStore();
        this.engine = new LockEngine(store, renewedLease,
                (key, token, fence, detection) -> this.losses.add(new Loss(key, token, fence, detection)));
    }

    /**
     * Runs the call on a new thread of this application, a caller of its own that blocks beside the others (not on
     * the common pool, where on two cores it would queue behind another blocked task).
     */
    public <T> CompletableFuture<T> onAnotherThread(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, (task) -> {
            Thread thread = new Thread(task, this.name + "-caller");
            thread.setDaemon(true);
            thread.start();
        });
    }

    /**
     * The application crashes: its engine stops (renewing nothing, releasing nothing) and its store closes; what
     * it held ends as the store's locks end ({@link StoreFixture#crashed}). The kit no longer asks it whether
     * anything is left.
     */
    public void crash() {
        this.crashed = true;
        this.engine.close();
        this.fixture.crashed(this.store);
    }

    /** Whether {@link #crash} was called. */
    public boolean crashed() {
        return this.crashed;
    }

    /** The application's name in the check's messages. */
    public String name() {
        return this.name;
    }

    public LockStore store() {
        return this.store;
    }

    public LockEngine engine() {
        return this.engine;
    }

    /** The losses the engine told its listener, in the order it told them. */
    public List<Loss> losses() {
        return this.losses;
    }

    /** Whether the engine told the loss of the key's lock with this fencing token. */
    public boolean told(String key, long fencingToken) {
        return this.losses.stream().anyMatch((loss) -> loss.key().equals(key) && loss.fencingToken() == fencingToken);
    }

    /** The store's key for a lock name. */
    public String key(String name) {
        return this.store.key(name);
    }

    /** A renewed lock on the name, waiting up to {@code wait}. */
    public LockHandle acquire(String name, Duration wait) {
        return this.engine.acquire(LockRequest.of(name, wait, null));
    }

    public LockHandle acquire(LockRequest request) {
        return this.engine.acquire(request);
    }

    /** What the store says of the name's key now, asked through this application. */
    public LockInspection inspect(String name) {
        return this.engine.inspect(name);
    }

    /** Whether this application's engine holds the key now (its snapshot of held keys). */
    public boolean holds(String key) {
        return this.engine.state().held().stream().anyMatch((held) -> held.key().equals(key));
    }

    /**
     * The fencing token this application holds the key with now, read from the engine's snapshot (a multi-key
     * handle carries one token for all its keys).
     * @throws IllegalStateException if it does not hold the key
     */
    public long fenceOf(String key) {
        return this.engine.state().held().stream().filter((held) -> held.key().equals(key)).findFirst()
            .map((held) -> held.fencingToken())
            .orElseThrow(() -> new IllegalStateException(this.name + " does not hold " + key));
    }

    @Override
    public String toString() {
        return this.name;
    }
}
