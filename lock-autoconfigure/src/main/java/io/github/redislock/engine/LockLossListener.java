package io.github.redislock.engine;

import io.github.redislock.LockLossDetection;

/** Told when a held lock turns out to be lost. Called on the detecting thread; must not block. */
@FunctionalInterface
public interface LockLossListener {

    LockLossListener NONE = (key, token, fencingToken, detection) -> {
    };

    void lockLost(String key, String token, long fencingToken, LockLossDetection detection);
}
