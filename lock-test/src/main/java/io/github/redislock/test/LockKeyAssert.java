package io.github.redislock.test;

import org.assertj.core.api.AbstractAssert;
import org.jspecify.annotations.Nullable;

/** Whether a lock key is held or free, read when the assertion is made. */
public final class LockKeyAssert extends AbstractAssert<LockKeyAssert, String> {

    /** How a {@link LockKeyState} describes a key kept for holdAtLeast. */
    static final String KEPT = "kept after its work ended (holdAtLeast)";

    private final LockKeyState state;

    LockKeyAssert(String key, LockKeyState state) {
        super(key, LockKeyAssert.class);
        this.state = state;
    }

    /** Someone holds the lock now. */
    public LockKeyAssert isHeld() {
        if (this.state.holder() == null) {
            failWithMessage("Expected lock <%s> to be held, but it is free", this.actual);
        }
        return this;
    }

    /**
     * The lock is kept now after its work ended, because holdAtLeast had not passed yet: taken, by nobody, until it
     * expires ({@link #isHeld()} holds too).
     */
    public LockKeyAssert isKept() {
        String holder = this.state.holder();
        if (holder == null || !holder.startsWith(KEPT)) {
            failWithMessage("Expected lock <%s> to be kept for holdAtLeast, but it is %s", this.actual,
                    (holder != null) ? "held (" + holder + ")" : "free");
        }
        return this;
    }

    /** Nobody holds the lock now: the key is absent, or shows only the last fencing token of a release. */
    public LockKeyAssert isFree() {
        String holder = this.state.holder();
        if (holder != null) {
            failWithMessage("Expected lock <%s> to be free, but it is held (%s)", this.actual, holder);
        }
        return this;
    }

    /** Reads who holds a key. */
    @FunctionalInterface
    interface LockKeyState {

        /** A description of the holder, or {@code null} when the lock is free. */
        @Nullable String holder();
    }
}
