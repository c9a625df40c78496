package io.github.redislock.engine;

/**
 * {@link Entry}'s HELD → LOST / RELEASED moves with one defect seeded, for {@link EngineLossModelCheckTest} to show
 * that its checker finds it: {@code markLost} checks and then sets, instead of one compare-and-set, so that two
 * detectors racing (a renewal round and the store's own report) may both make the move and signal the loss twice.
 */
final class SeededEntryState {

    private static final int HELD = 0;

    private static final int RELEASED = 1;

    private static final int LOST = 2;

    private volatile int state = HELD;

    /** The seeded defect: not atomic. */
    boolean markLost() {
        if (this.state == HELD) {
            this.state = LOST;
            return true;
        }
        return false;
    }

    boolean markReleased() {
        synchronized (this) {
            if (this.state == HELD) {
                this.state = RELEASED;
                return true;
            }
            return false;
        }
    }
}
