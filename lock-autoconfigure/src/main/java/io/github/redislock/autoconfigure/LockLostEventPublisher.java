package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.LockStore;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Turns the engine's loss signal into a {@link LockLostEvent} in the application context: the one way the losses of
 * every store are published, with the {@link LockEngine} that held the lock (the application's {@code LockProvider})
 * as the event's source.
 */
final class LockLostEventPublisher implements LockLossListener {

    private final ApplicationEventPublisher publisher;

    /** Set before the engine is handed out: no lock can be lost earlier. */
    private volatile @Nullable LockEngine engine;

    private LockLostEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    /** The engine over the store, its losses published as {@link LockLostEvent}s from it. */
    static LockEngine engine(LockStore store, Duration renewedLease, ApplicationEventPublisher publisher) {
        LockLostEventPublisher events = new LockLostEventPublisher(publisher);
        LockEngine engine = new LockEngine(store, renewedLease, events);
        events.engine = engine;
        return engine;
    }

    @Override
    public void lockLost(String key, String token, long fencingToken, LockLossDetection detection) {
        this.publisher.publishEvent(new LockLostEvent(Objects.requireNonNull(this.engine), key, token, fencingToken,
                Instant.now(), detection));
    }
}
