package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import io.github.redislock.testsupport.RedisSentinel;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@link LockApplication}s a test starts, closed after it (before the topology's own clean-up):
 *
 * <pre>{@code
 * @RegisterExtension
 * final LockApplications applications = new LockApplications();
 * }</pre>
 */
final class LockApplications implements AfterEachCallback {

    private final List<LockApplication> started = new ArrayList<>();

    /** An application on the Sentinel-managed master (see {@link LockApplication#start(RedisSentinel, ClientLibrary, String...)}). */
    LockApplication start(RedisSentinel sentinel, ClientLibrary library, String... properties) {
        LockApplication application = LockApplication.start(sentinel, library, properties);
        this.started.add(application);
        return application;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        this.started.forEach(LockApplication::close);
        this.started.clear();
    }
}
