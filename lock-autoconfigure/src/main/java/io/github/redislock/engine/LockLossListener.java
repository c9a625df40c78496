package io.github.redislock.engine;

import io.github.redislock.LockLossDetection;

/**
 * Told when a held lock turns out to be lost. Called on the detecting thread; must not block. The Spring Boot
 * auto-configuration's listener publishes a {@code LockLostEvent} whose source is the {@link LockEngine}. Store SPI
 * (a constructor argument of {@link LockEngine}).
 */
@FunctionalInterface
public interface LockLossListener {

    LockLossListener NONE = (key, token, fencingToken, detection) -> {
    };

    void lockLost(String key, String token, long fencingToken, LockLossDetection detection);
}
