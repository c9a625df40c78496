package io.github.redislock.test;

import java.util.Arrays;
import java.util.List;

import org.assertj.core.api.AbstractAssert;

import io.github.redislock.test.LockRecorder.RecordedLock;

/** Which locks the application took, as a {@link LockRecorder} saw them. */
public final class RecordedLocksAssert extends AbstractAssert<RecordedLocksAssert, LockRecorder> {

    RecordedLocksAssert(LockRecorder recorder) {
        super(recorder, RecordedLocksAssert.class);
    }

    /**
     * At least one acquisition took the lock of this name (as written on the annotation or given to the template,
     * without the key prefix), alone or with other keys.
     */
    public RecordedLocksAssert ranUnder(String name) {
        List<RecordedLock> locks = this.actual.locks();
        if (locks.stream().noneMatch((lock) -> lock.names().contains(name))) {
            failWithMessage("Expected a lock on <%s>, but the locks taken were %s", name, names(locks));
        }
        return this;
    }

    /** Exactly these locks were taken, one acquisition each, in this order. */
    public RecordedLocksAssert tookExactly(String... names) {
        List<List<String>> taken = names(this.actual.locks());
        List<List<String>> expected = Arrays.stream(names).map(List::of).toList();
        if (!taken.equals(expected)) {
            failWithMessage("Expected the locks %s, one acquisition each, but the locks taken were %s", expected,
                    taken);
        }
        return this;
    }

    /** No lock was taken at all. */
    public RecordedLocksAssert tookNone() {
        List<RecordedLock> locks = this.actual.locks();
        if (!locks.isEmpty()) {
            failWithMessage("Expected no lock to be taken, but the locks taken were %s", names(locks));
        }
        return this;
    }

    /**
     * Every recorded lock has been released (or lost) by now: nothing taken is still held by its handle. A lock
     * whose handle closed before its holdAtLeast had passed counts as released here, though its key is still kept
     * ({@link LockAssertions#assertThatLock} {@code .isKept()} says that).
     */
    public RecordedLocksAssert holdsNothing() {
        List<RecordedLock> held = this.actual.locks().stream().filter(RecordedLock::heldNow).toList();
        if (!held.isEmpty()) {
            failWithMessage("Expected every lock taken to be released, but these are held: %s", held);
        }
        return this;
    }

    private static List<List<String>> names(List<RecordedLock> locks) {
        return locks.stream().map(RecordedLock::names).toList();
    }
}
