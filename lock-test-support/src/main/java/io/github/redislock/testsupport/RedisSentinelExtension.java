package io.github.redislock.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link RedisSentinel} topology per test class, for JUnit 5, healed and emptied after each test so that
 * the next one starts from a master with every replica in sync, whatever faults the last one injected:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisSentinelExtension sentinel = RedisSentinelExtension.healedAfterEach(2);
 * }</pre>
 */
public final class RedisSentinelExtension implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {

    private final int replicas;

    private RedisSentinel topology;

    private RedisSentinelExtension(int replicas) {
        this.replicas = replicas;
    }

    /** A master with the given number of replicas and three Sentinels, healed and flushed after each test. */
    public static RedisSentinelExtension healedAfterEach(int replicas) {
        return new RedisSentinelExtension(replicas);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (this.topology == null) {
            this.topology = RedisSentinel.start(this.replicas);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        this.topology.heal();
        this.topology.master().flushAll();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // A parameterized class runs its invocations inside the class: stop only after the outermost one.
        if (this.topology != null && context.getParent().flatMap(ExtensionContext::getParent).isEmpty()) {
            this.topology.close();
            this.topology = null;
        }
    }

    /** The running topology. */
    public RedisSentinel topology() {
        if (this.topology == null) {
            throw new IllegalStateException("The Sentinel topology starts before the first test of the class");
        }
        return this.topology;
    }
}
