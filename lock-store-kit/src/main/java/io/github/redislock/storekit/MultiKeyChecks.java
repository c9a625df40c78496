package io.github.redislock.storekit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockInspection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Several keys in one request: all or nothing, in whatever order they are named, without deadlock. */
public interface MultiKeyChecks extends StoreChecks {

    /**
     * A request whose middle key another application holds gets none of its keys and leaves nothing of the
     * others behind; once that key is free, the same keys named in another order are all taken, and all freed.
     */
    @Test
    default void aRequestForSeveralKeysTakesAllOrNone() {
        Application first = start(STEADY_LEASE);
        Application second = start(STEADY_LEASE);
        try (LockHandle busy = second.acquire("multi:b", NO_WAIT)) {
            assertThatThrownBy(() -> first
                .acquire(LockRequest.of(List.of("multi:a", "multi:b", "multi:c"), SHORT_WAIT, null)))
                .isInstanceOfSatisfying(LockNotAcquiredException.class, (ex) -> assertThat(ex.getKeys())
                    .containsExactly(first.key("multi:a"), first.key("multi:b"), first.key("multi:c")));
            awaitNothingLeft("multi:a", "multi:c");
            assertThat(busy.verifyHeld()).isTrue();
            assertThat(first.inspect("multi:b").fencingToken()).isEqualTo(busy.fencingToken());
        }
        try (LockHandle all = first.acquire(LockRequest.of(List.of("multi:c", "multi:a", "multi:b"), LONG_WAIT, null))) {
            assertThat(all.isHeld()).isTrue();
            for (String name : List.of("multi:a", "multi:b", "multi:c")) {
                assertThat(second.inspect(name).state()).as(name).isEqualTo(LockInspection.State.HELD);
                assertThatThrownBy(() -> second.acquire(name, NO_WAIT)).isInstanceOf(LockNotAcquiredException.class);
            }
        }
        awaitNothingLeft("multi:a", "multi:b", "multi:c");
    }

    /**
     * Two applications with two threads each name the same two keys in random order, on short renewed leases:
     * every request gets both keys in the end (no deadlock), and the witness finds no two sections of a key
     * inside at once.
     */
    @Test
    default void requestsNamingTheSameKeysInEitherOrderNeverDeadlock() throws Exception {
        List<Application> applications = applications().start(2, SHORT_LEASE);
        Witness witness = new Witness();
        int rounds = 10;
        List<Callable<?>> tasks = new ArrayList<>();
        for (Application application : applications) {
            for (int t = 0; t < 2; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < rounds; i++) {
                        List<String> names = new ArrayList<>(List.of("pair:x", "pair:y"));
                        Collections.shuffle(names);
                        try (LockHandle both = application.acquire(LockRequest.of(names, LONG_WAIT, null))) {
                            List<Witness.Open> sections = new ArrayList<>();
                            for (String name : names) {
                                String key = application.key(name);
                                sections.add(witness.enter(application, key, application.fenceOf(key)));
                            }
                            Crowd.dwell();
                            sections.forEach(witness::exit);
                        }
                    }
                    return null;
                });
            }
        }
        Crowd.run(tasks, Duration.ofMinutes(2));
        assertThat(witness.sections()).isEqualTo(applications.size() * 2 * rounds * 2);
        assertThat(witness.breaches()).isEmpty();
        awaitNothingLeft("pair:x", "pair:y");
    }
}
