package io.github.redislock.autoconfigure;

import java.time.Instant;

import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.engine.LockLossListener;

import org.springframework.context.ApplicationEventPublisher;

/** Turns the engine's loss signal into a {@link LockLostEvent} in the application context. */
final class LockLostEventPublisher implements LockLossListener {

    private final ApplicationEventPublisher publisher;

    LockLostEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void lockLost(String key, String token, long fencingToken, LockLossDetection detection) {
        this.publisher.publishEvent(new LockLostEvent(this, key, token, fencingToken, Instant.now(), detection));
    }
}
