package io.github.redislock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;

/**
 * Several locks taken together and released together, in reverse order of acquisition. {@link #key()} lists
 * the keys separated by commas; {@link #token()} and {@link #fencingToken()} are those of the first key.
 */
final class MultiLockHandle implements LockHandle {

    private final List<LockHandle> handles;

    private final String keys;

    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param handles the locks, in the order they were taken */
    MultiLockHandle(List<? extends LockHandle> handles) {
        this.handles = List.copyOf(handles);
        this.keys = String.join(",", handles.stream().map(LockHandle::key).toList());
    }

    @Override
    public String key() {
        return this.keys;
    }

    @Override
    public String token() {
        return this.handles.get(0).token();
    }

    @Override
    public long fencingToken() {
        return this.handles.get(0).fencingToken();
    }

    @Override
    public boolean isHeld() {
        if (this.closed.get()) {
            return false;
        }
        for (LockHandle handle : this.handles) {
            if (!handle.isHeld()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean isLost() {
        for (LockHandle handle : this.handles) {
            if (handle.isLost()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean verifyHeld() {
        boolean held = true;
        for (LockHandle handle : this.handles) {
            held &= handle.verifyHeld();
        }
        return held;
    }

    /** Extends every key in turn, even when one is found lost; true if each was extended. */
    @Override
    public boolean extend(Duration lease, Duration holdAtLeast) {
        if (this.closed.get()) {
            throw new IllegalStateException("Locks " + this.keys + " were released by this handle; they cannot be "
                    + "extended");
        }
        boolean extended = true;
        for (LockHandle handle : this.handles) {
            extended &= handle.extend(lease, holdAtLeast);
        }
        return extended;
    }

    /** Releases every key, even when one release fails; the first failure is thrown afterwards. */
    @Override
    public void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        LockException failure = null;
        for (int i = this.handles.size() - 1; i >= 0; i--) {
            try {
                this.handles.get(i).close();
            }
            catch (LockException ex) {
                if (failure == null) {
                    failure = ex;
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + this.keys + "]";
    }
}
