package io.github.redislock.storekit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.engine.LockInspection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The applications of one check over one {@link StoreFixture}: each {@link #start} makes a store over the
 * fixture's backend and an engine over it. Closing closes every engine (and so its store), then the fixture.
 */
public final class Applications implements AutoCloseable {

    /** How long whatever a store does after a call returns (a queue left, the other nodes' answers) may take. */
    private static final Duration SETTLING = Duration.ofSeconds(30);

    private final StoreFixture fixture;

    private final List<Application> started = new ArrayList<>();

    Applications(StoreFixture fixture) {
        this.fixture = fixture;
    }

    public StoreFixture fixture() {
        return this.fixture;
    }

    /**
     * One more application over the backend; its renewed locks have this lease (renewed every third of it).
     */
    public synchronized Application start(Duration renewedLease) {
        Application application = new Application("application " + (this.started.size() + 1), this.fixture,
                renewedLease);
        this.started.add(application);
        return application;
    }

    /** {@code count} more applications with the same lease. */
    public List<Application> start(int count, Duration renewedLease) {
        List<Application> applications = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            applications.add(start(renewedLease));
        }
        return applications;
    }

    /**
     * Waits until nothing is left of these names' keys: every application's engine holds none, the store says
     * each is free from every application, and the backend keeps nothing for it ({@link StoreFixture#residue}).
     * A store may finish after a call returned (a queue left on another thread, a release on the other nodes),
     * so this waits for it, for a bounded time.
     */
    public void awaitNothingLeft(String... names) {
        List<Application> applications = List.copyOf(this.started);
        await().atMost(SETTLING).untilAsserted(() -> {
            for (String name : names) {
                for (Application application : applications) {
                    if (application.crashed()) {
                        continue;
                    }
                    String key = application.key(name);
                    assertThat(application.holds(key)).as("%s holds %s", application, key).isFalse();
                    assertThat(application.engine().state().waiting()).as("%s waits for", application).doesNotContainKey(key);
                    assertThat(application.inspect(name).state()).as("%s as %s sees it", key, application)
                        .isEqualTo(LockInspection.State.FREE);
                }
                String key = applications.get(0).key(name);
                // The backend keeps nothing, the crashed applications' locks included.
                assertThat(this.fixture.residue(key)).as("what the backend keeps for %s", key).isEmpty();
            }
        });
    }

    /** Closes every engine, last started first, then the fixture. */
    @Override
    public synchronized void close() {
        RuntimeException failure = null;
        for (int i = this.started.size() - 1; i >= 0; i--) {
            try {
                this.started.get(i).engine().close();
            }
            catch (RuntimeException ex) {
                failure = (failure != null) ? failure : ex;
            }
        }
        this.started.clear();
        try {
            this.fixture.close();
        }
        catch (Exception ex) {
            failure = (failure != null) ? failure : new IllegalStateException("Closing the fixture failed", ex);
        }
        if (failure != null) {
            throw failure;
        }
    }
}
