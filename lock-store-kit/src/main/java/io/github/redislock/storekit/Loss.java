package io.github.redislock.storekit;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;

/**
 * One loss an engine told its {@link io.github.redislock.engine.LockLossListener}, as the kit records it.
 * @param key the store's key
 * @param token the lost lock's token
 * @param fencingToken the lost lock's fencing token
 * @param detection how it was found
 */
public record Loss(String key, String token, long fencingToken, LockLossDetection detection) {

    /** Whether this is the loss of the lock behind the handle (a single-key handle). */
    public boolean of(LockHandle handle) {
        return this.key.equals(handle.key()) && this.fencingToken == handle.fencingToken()
                && this.token.equals(handle.token());
    }
}
