package io.github.redislock.test;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.LockHandle;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

/**
 * Records every lock the application takes through its {@code DistributedLockTemplate} (and so every
 * {@code @DistributedLock} call), to assert on with {@link LockAssertions#assertThat(LockRecorder)}. Set up by
 * {@link AutoConfigureLockRecorder}, over whichever {@link LockProvider} the application uses (Redis or
 * in-process); it records and passes everything on unchanged.
 */
public final class LockRecorder {

    private final List<Acquisition> acquisitions = new ArrayList<>();

    /** The acquisitions so far, oldest first, each with whether its handle holds the lock now. */
    public synchronized List<RecordedLock> locks() {
        return this.acquisitions.stream().map(Acquisition::snapshot).toList();
    }

    /** Forgets the acquisitions so far (between tests that share an application context). */
    public synchronized void clear() {
        this.acquisitions.clear();
    }

    /** A provider that takes locks from the given one and records each acquisition. */
    LockProvider recording(LockProvider provider) {
        return (request) -> {
            LockHandle handle = provider.acquire(request);
            record(new Acquisition(request, handle, Thread.currentThread().getName()));
            return handle;
        };
    }

    private synchronized void record(Acquisition acquisition) {
        this.acquisitions.add(acquisition);
    }

    /**
     * One acquisition: the lock names asked for (without the key prefix), the key as the provider named it, its
     * fencing token, the thread that took it, and whether it is held still.
     */
    public record RecordedLock(List<String> names, String key, long fencingToken, String threadName,
            boolean heldNow) {
    }

    private record Acquisition(LockRequest request, LockHandle handle, String threadName) {

        RecordedLock snapshot() {
            return new RecordedLock(this.request.keys(), this.handle.key(), this.handle.fencingToken(),
                    this.threadName, this.handle.isHeld());
        }
    }
}
