package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import io.github.redislock.LockHandle;

/**
 * One acquisition of one key through {@link LockEngine}. Nested acquisitions of the same key by the owning
 * thread get their own handle on the same {@link Entry}; the key is released when the last of them closes.
 */
final class EngineHandle implements LockHandle {

    private final LockEngine engine;

    private final Entry entry;

    /** Closed once (0 open, 1 closed): a field updater rather than an AtomicBoolean, one object less per lock. */
    private static final AtomicIntegerFieldUpdater<EngineHandle> CLOSED = AtomicIntegerFieldUpdater
        .newUpdater(EngineHandle.class, "closed");

    private volatile int closed;

    EngineHandle(LockEngine engine, Entry entry) {
        this.engine = engine;
        this.entry = entry;
    }

    /** The key's entry, shared with the nested acquisitions. */
    Entry entry() {
        return this.entry;
    }

    @Override
    public String key() {
        return this.entry.lock.key();
    }

    @Override
    public String token() {
        return this.entry.lock.token();
    }

    @Override
    public long fencingToken() {
        return this.entry.lock.fencingToken();
    }

    @Override
    public boolean isHeld() {
        return this.closed == 0 && this.entry.isHeld();
    }

    @Override
    public boolean isLost() {
        return this.entry.isLost();
    }

    @Override
    public boolean verifyHeld() {
        return this.engine.verify(this.entry);
    }

    /** Extends the key's lock, which nested acquisitions share: see {@link Extender}. */
    @Override
    public boolean extend(Duration lease, Duration holdAtLeast) {
        if (this.closed != 0) {
            throw new IllegalStateException("Lock '" + key() + "' was released by this handle; it cannot be extended");
        }
        return this.engine.extend(this.entry, lease, holdAtLeast);
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, 0, 1)) {
            this.engine.exit(this.entry, false);
        }
    }

    /** Closes it as part of undoing a failed multi-key acquisition: the section never ran, nothing is kept. */
    void undo() {
        if (CLOSED.compareAndSet(this, 0, 1)) {
            this.engine.exit(this.entry, true);
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + key() + ", fence " + fencingToken() + "]";
    }
}
