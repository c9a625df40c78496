package io.github.redislock.redlock;

import java.util.List;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;

/** The locks of a multi-key request, held and released together (in reverse order). */
final class RedlockHandles implements LockHandle {

    private final List<RedlockHandle> handles;

    RedlockHandles(List<RedlockHandle> handles) {
        this.handles = List.copyOf(handles);
    }

    @Override
    public String key() {
        return this.handles.get(0).key();
    }

    @Override
    public String token() {
        return this.handles.get(0).token();
    }

    /** The first key's: every key has a fencing counter of its own. */
    @Override
    public long fencingToken() {
        return this.handles.get(0).fencingToken();
    }

    @Override
    public boolean isHeld() {
        return this.handles.stream().allMatch(RedlockHandle::isHeld);
    }

    @Override
    public boolean isLost() {
        return this.handles.stream().anyMatch(RedlockHandle::isLost);
    }

    @Override
    public boolean verifyHeld() {
        boolean held = true;
        for (RedlockHandle handle : this.handles) {
            held &= handle.verifyHeld();
        }
        return held;
    }

    @Override
    public void close() {
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
}
