package io.github.redislock.support;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.RedisServer;

/** Makes lease renewal fail on purpose, for tests of what reports it. */
public final class RenewalFaults {

    private RenewalFaults() {
    }

    /**
     * Runs one renewal round while the server is paused (SIGSTOP), so that it fails by the connection's command
     * timeout (keep it short), then resumes the server.
     */
    public static void failOneRound(RedisServer server, LockEngine client) {
        server.pause();
        try {
            client.renewNow();
        }
        finally {
            server.resume();
        }
    }
}
