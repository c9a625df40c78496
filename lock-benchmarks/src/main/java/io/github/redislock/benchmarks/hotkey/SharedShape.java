package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.ThreadLocalRandom;

/**
 * What the shared-key runs take on their one key: a permit of a semaphore of {@value #PERMITS} every time, or a
 * read lock nine times in ten and a write lock the tenth (drawn anew for every call, so that every thread both
 * reads and writes).
 */
enum SharedShape {

    SEMAPHORE("pool", "semaphore of " + SharedShape.PERMITS),

    READ_MOSTLY("doc", "read-mostly 90/10");

    /** The semaphore's permits. */
    static final int PERMITS = 4;

    private final String key;

    private final String label;

    SharedShape(String key, String label) {
        this.key = key;
        this.label = label;
    }

    /** The key every client instance takes (each implementation in its own Redis database flush or ZooKeeper path). */
    String key() {
        return this.key;
    }

    String label() {
        return this.label;
    }

    /** Whether the next call writes: never for the semaphore, one in ten for the read-mostly runs. */
    boolean nextIsWrite() {
        return this == READ_MOSTLY && ThreadLocalRandom.current().nextInt(10) == 0;
    }
}
