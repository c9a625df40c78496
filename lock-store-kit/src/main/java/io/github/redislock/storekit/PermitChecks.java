package io.github.redislock.storekit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.Sharing;

/**
 * Semaphores: at most N holders of a key of N permits across every application and thread, judged by a
 * {@link Witness}; all N reachable at once; a crashed holder's permit back within one lease; fencing tokens of
 * their own, growing from holder to holder; another permit count refused at once, naming both.
 */
public interface PermitChecks extends StoreChecks {

    /** One permit of a semaphore of {@code permits} on the name, renewed, waiting up to {@code wait}. */
    static LockRequest permit(String name, int permits, Duration wait) {
        return LockRequest.of(name, wait, null).permits(permits);
    }

    /**
     * Three applications with four threads each take permits of a semaphore of 3 over and over, on leases short
     * enough to cross renewal rounds. The witness finds never more than 3 inside, distinct fencing tokens, and each
     * larger than those of sections that ended before it began.
     */
    @Test
    default void aSemaphoreAdmitsAtMostItsPermitsAcrossApplicationsAndThreads() throws Exception {
        assumeShared(Sharing.permits(3));
        List<Application> applications = applications().start(3, SHORT_LEASE);
        Witness witness = new Witness();
        Sharing sharing = Sharing.permits(3);
        List<Callable<?>> tasks = new ArrayList<>();
        for (Application application : applications) {
            for (int t = 0; t < 4; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < 10; i++) {
                        try (LockHandle lock = application.acquire(permit("pool", 3, LONG_WAIT))) {
                            Witness.Open section = witness.enter(application, lock.key(), lock.fencingToken(), sharing);
                            Crowd.dwell();
                            witness.exit(section);
                        }
                    }
                    return null;
                });
            }
        }
        Crowd.run(tasks, Duration.ofMinutes(2));
        assertThat(witness.sections()).isEqualTo(3 * 4 * 10);
        assertThat(witness.breaches()).isEmpty();
        awaitNothingLeft("pool");
    }

    /**
     * All permits can be held at once, from different applications, and one more is refused until a permit is
     * released, then admitted.
     */
    @Test
    default void exactlyItsPermitsAreHeldAtOnceAndAReleasedOneIsTakenAgain() {
        assumeShared(Sharing.permits(3));
        List<Application> applications = applications().start(4, STEADY_LEASE);
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(applications.get(i).acquire(permit("three", 3, NO_WAIT)));
        }
        assertThat(held).map(LockHandle::fencingToken).doesNotHaveDuplicates();
        Application fourth = applications.get(3);
        assertThatExceptionOfType(LockNotAcquiredException.class)
            .isThrownBy(() -> fourth.acquire(permit("three", 3, SHORT_WAIT)));
        long highest = held.stream().mapToLong(LockHandle::fencingToken).max().getAsLong();
        held.remove(1).close();
        try (LockHandle lock = fourth.acquire(permit("three", 3, LONG_WAIT))) {
            assertThat(lock.fencingToken()).isGreaterThan(highest);
            assertThat(held).allSatisfy((other) -> assertThat(other.verifyHeld()).isTrue());
        }
        held.forEach(LockHandle::close);
        awaitNothingLeft("three");
    }

    /**
     * An application that holds every permit of a semaphore crashes (its engine stops, releasing nothing); another
     * one gets all the permits back within one lease of the crash (plus what pauses of this JVM measurably cost),
     * without any release and without anything sweeping.
     */
    @Test
    default void aCrashedHoldersPermitsComeBackWithinOneLease() {
        assumeShared(Sharing.permits(3));
        Application crashing = start(SHORT_LEASE);
        Application other = start(SHORT_LEASE);
        LockHandle first = crashing.acquire(permit("crash", 2, NO_WAIT).nonReentrant());
        LockHandle second = crashing.acquire(permit("crash", 2, NO_WAIT).nonReentrant());
        assertThat(first.fencingToken()).isNotEqualTo(second.fencingToken());
        try (Pauses pauses = Pauses.measure()) {
            crashing.crash();
            long crashedAt = System.nanoTime();
            try (LockHandle one = other.acquire(permit("crash", 2, LONG_WAIT).nonReentrant());
                    LockHandle two = other.acquire(permit("crash", 2, LONG_WAIT).nonReentrant())) {
                Duration back = Duration.ofNanos(System.nanoTime() - crashedAt);
                assertThat(back).as("both permits back after")
                    .isLessThanOrEqualTo(SHORT_LEASE.plus(LossChecks.ROUND_TRIP_ALLOWANCE).plus(pauses.longest()));
                assertThat(List.of(one.fencingToken(), two.fencingToken()))
                    .allSatisfy((fence) -> assertThat(fence).isGreaterThan(Math.max(first.fencingToken(),
                            second.fencingToken())));
            }
        }
        awaitNothingLeft("crash");
    }

    /**
     * A key in use as a semaphore of 3 refuses a request for another count (and a plain lock) at once, naming both
     * counts, and that request leaves nothing behind: the holder's permit stays, and the key frees with its release.
     */
    @Test
    default void anotherPermitCountIsRefusedAtOnceNamingBoth() {
        assumeShared(Sharing.permits(3));
        Application holder = start(STEADY_LEASE);
        Application other = start(STEADY_LEASE);
        LockHandle held = holder.acquire(permit("counted", 3, NO_WAIT));
        assertThatExceptionOfType(LockException.class)
            .isThrownBy(() -> other.acquire(permit("counted", 2, LONG_WAIT)))
            .withMessageContaining("3 permits").withMessageContaining("2 permits");
        assertThatExceptionOfType(LockException.class)
            .isThrownBy(() -> other.acquire("counted", LONG_WAIT))
            .withMessageContaining("3 permits").withMessageContaining("1 permit");
        assertThat(held.verifyHeld()).isTrue();
        held.close();
        awaitNothingLeft("counted");
    }

    /**
     * A permit taken away in the store is told like a lock: its application's loss listener, {@code isHeld()}
     * false; the other holder's permit stays.
     */
    @Test
    default void aPermitLostInTheStoreIsToldAndTheOthersStay() {
        assumeShared(Sharing.permits(3));
        StoreFixture fixture = applications().fixture();
        Application holder = start(SHORT_LEASE);
        Application other = start(SHORT_LEASE);
        LockHandle lost = holder.acquire(permit("told", 2, NO_WAIT));
        LockHandle kept = other.acquire(permit("told", 2, NO_WAIT));
        fixture.losePermit(holder.store(), lost.key(), lost.token());
        await().atMost(LONG_WAIT).until(() -> !holder.losses().isEmpty());
        assertThat(holder.losses()).singleElement().satisfies((loss) -> assertThat(loss.of(lost)).isTrue());
        assertThat(lost.isHeld()).isFalse();
        assertThat(kept.verifyHeld()).isTrue();
        assertThat(other.losses()).isEmpty();
        lost.close();
        kept.close();
        awaitNothingLeft("told");
    }
}
