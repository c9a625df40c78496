package io.github.redislock.storekit;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockInspection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reentrancy and its limits: the holding thread enters again on the same lock; other threads, other applications
 * and non-reentrant requests (asynchronous work) are kept out, and a lock taken by a non-reentrant request is
 * entered by nobody.
 */
public interface ReentrancyChecks extends StoreChecks {

    @Test
    default void theHoldingThreadEntersAgainOnTheSameLockUntilTheOutermostRelease() {
        Application application = start(STEADY_LEASE);
        LockHandle outer = application.acquire("reentrant", NO_WAIT);
        assertThat(outer.key()).isEqualTo(application.key("reentrant"));
        try (LockHandle inner = application.acquire("reentrant", NO_WAIT)) {
            assertThat(inner.token()).isEqualTo(outer.token());
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        }
        assertThat(outer.isHeld()).isTrue();
        assertThat(outer.verifyHeld()).isTrue();
        assertThat(application.inspect("reentrant").state()).isEqualTo(LockInspection.State.HELD);
        assertThat(application.inspect("reentrant").fencingToken()).isEqualTo(outer.fencingToken());
        outer.close();
        assertThat(outer.isHeld()).isFalse();
        awaitNothingLeft("reentrant");
    }

    @Test
    default void otherThreadsAndApplicationsStayOutOfAHeldAndEnteredLock() throws Exception {
        Application application = start(STEADY_LEASE);
        Application other = start(STEADY_LEASE);
        try (LockHandle outer = application.acquire("entered", NO_WAIT);
                LockHandle inner = application.acquire("entered", NO_WAIT)) {
            CompletableFuture<LockHandle> anotherThread = application
                .onAnotherThread(() -> application.acquire("entered", SHORT_WAIT));
            assertThatThrownBy(() -> anotherThread.get(30, TimeUnit.SECONDS)).cause()
                .isInstanceOf(LockNotAcquiredException.class);
            assertThatThrownBy(() -> other.acquire("entered", SHORT_WAIT)).isInstanceOf(LockNotAcquiredException.class);
            assertThat(outer.isHeld() && inner.isHeld()).isTrue();
        }
        awaitNothingLeft("entered");
    }

    @Test
    default void aNonReentrantRequestNeitherEntersNorIsEntered() {
        Application application = start(STEADY_LEASE);
        try (LockHandle held = application.acquire("asynchronous", NO_WAIT)) {
            assertThatThrownBy(() -> application.acquire(LockRequest.of("asynchronous", SHORT_WAIT, null).nonReentrant()))
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(held.isHeld()).isTrue();
        }
        try (LockHandle asynchronous = application
            .acquire(LockRequest.of("asynchronous", NO_WAIT, null).nonReentrant())) {
            assertThatThrownBy(() -> application.acquire("asynchronous", SHORT_WAIT))
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(asynchronous.isHeld()).isTrue();
        }
        awaitNothingLeft("asynchronous");
    }

    /**
     * A multi-key request of the thread that holds one of its keys enters that key on the same lock and takes the
     * other; closing it gives back only the key it took.
     */
    @Test
    default void aMultiKeyRequestEntersTheKeyItsThreadHoldsAndTakesTheRest() {
        Application application = start(STEADY_LEASE);
        Application other = start(STEADY_LEASE);
        try (LockHandle held = application.acquire("part:a", NO_WAIT)) {
            try (LockHandle both = application.acquire(LockRequest.of(List.of("part:b", "part:a"), NO_WAIT, null))) {
                assertThat(both.isHeld()).isTrue();
                assertThat(application.fenceOf(application.key("part:a"))).isEqualTo(held.fencingToken());
                assertThat(other.inspect("part:b").state()).isEqualTo(LockInspection.State.HELD);
            }
            awaitNothingLeft("part:b");
            assertThat(held.verifyHeld()).isTrue();
            assertThat(other.inspect("part:a").fencingToken()).isEqualTo(held.fencingToken());
        }
        awaitNothingLeft("part:a");
    }
}
