package io.github.redislock.storekit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion and fencing tokens: at most one holder per key across every application and thread, and each
 * holder's fencing token larger than every earlier holder's, judged by a {@link Witness} kept outside the store.
 */
public interface ExclusionChecks extends StoreChecks {

    /**
     * Three applications with three threads each take one key over and over on renewed leases short enough to
     * cross many renewal rounds. The witness finds no two sections inside at once and the tokens growing in the
     * order the sections began, except where an application was told its lock was lost.
     */
    @Test
    default void applicationsAndTheirThreadsNeverOverlapAndFencesGrowInEntryOrder() throws Exception {
        List<Application> applications = applications().start(3, SHORT_LEASE);
        Witness witness = new Witness();
        int threads = 3;
        int rounds = 15;
        List<Callable<?>> tasks = new ArrayList<>();
        for (Application application : applications) {
            for (int t = 0; t < threads; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (LockHandle lock = application.acquire("hot", LONG_WAIT)) {
                            Witness.Open section = witness.enter(application, lock.key(), lock.fencingToken());
                            Crowd.dwell();
                            witness.exit(section);
                        }
                    }
                    return null;
                });
            }
        }
        Crowd.run(tasks, Duration.ofMinutes(2));
        assertThat(witness.sections()).isEqualTo(applications.size() * threads * rounds);
        assertThat(witness.breaches()).isEmpty();
        awaitNothingLeft("hot");
    }

    /** Holders that take turns, application after application, get ever larger fencing tokens. */
    @Test
    default void fencesGrowFromHolderToHolderAcrossApplications() {
        List<Application> applications = applications().start(2, STEADY_LEASE);
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 6; i++) {
            try (LockHandle lock = applications.get(i % 2).acquire("fenced", LONG_WAIT)) {
                assertThat(lock.fencingToken()).as("holder %d's fencing token", i).isGreaterThan(previous);
                previous = lock.fencingToken();
            }
        }
        awaitNothingLeft("fenced");
    }
}
