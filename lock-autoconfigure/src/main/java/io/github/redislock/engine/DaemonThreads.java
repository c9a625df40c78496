package io.github.redislock.engine;

import java.util.concurrent.ThreadFactory;

/**
 * The thread factory of every thread the library makes for itself (renewal, queue work, hand-off, registry,
 * Redlock calls, ZooKeeper timers): daemon threads, so that none of them keeps a JVM alive whose application has
 * ended, each with one fixed name, which thread dumps and the documentation show. Internal: used by the engine and
 * the stores of this library, not part of its API.
 */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** A factory of daemon threads all named {@code name}. */
    public static ThreadFactory named(String name) {
        return (task) -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
