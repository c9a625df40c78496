package io.github.redislock.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.redislock.engine.LockEngineState;

/**
 * The keys this application keeps in Redis after their work ended (holdAtLeast), remembered for the Actuator
 * endpoint only: the engine's decisions never read it, Redis alone says whether a key is still kept. One key's
 * life, from the moment its last holder here closes it:
 * <pre>
 * state     event                                                   next state
 * HELD      closed when holdAtLeast has passed since this holder    RELEASED: deleted, or handed to the next
 *           got it (or none was asked for)                          waiting application (as without it)
 * HELD      closed before holdAtLeast has passed: unlock.lua with   KEPT: the key holds '~kept:&lt;last fence&gt;'
 *           "keep N ms" (N = the rest of the minimum, rounded up)   with PX N; no thread, no renewal, no
 *           finds the key ours, in the same one round trip          local hand-over, no hand-off: nobody,
 *                                                                   here or elsewhere, can enter; queued
 *                                                                   applications are told to look again
 * HELD      closed, but the key was no longer ours                  LOST (signalled), nothing kept
 * KEPT      the PX runs out in Redis                                FREE: the first attempt after it takes
 *                                                                   the key, with a larger fencing token
 *                                                                   (Redis time, past the last fence)
 * </pre>
 * There is no way back from KEPT to HELD: a new acquisition, by a thread here or another application, is a new
 * holder with its own token, and only once the key has expired. The engine forgets a kept key here when this
 * JVM's clock says its keep ran out (counted from when the release's reply arrived, so not before Redis lets
 * it go: the display errs towards "still kept"), or when a thread here takes the key again.
 */
final class KeptLocks {

    private final Map<String, Kept> kept = new ConcurrentHashMap<>();

    /** The release of {@code lock}, whose reply arrived at {@code repliedAtNanos}, kept the key {@code keepMillis} more. */
    void kept(HeldLock lock, long keepMillis, long repliedAtNanos) {
        forgetExpired(System.nanoTime());
        this.kept.put(lock.key.name, new Kept(lock.key.name, lock.fence, lock.acquiredAtNanos,
                repliedAtNanos + TimeUnit.MILLISECONDS.toNanos(keepMillis)));
    }

    /** A thread here took the key again: it is held, no longer kept. */
    void taken(String keyName) {
        if (!this.kept.isEmpty()) {
            this.kept.remove(keyName);
        }
    }

    /** What the endpoint shows: the keys still kept by this JVM's clock, by key. */
    List<LockEngineState.KeptKey> view(long nowNanos, Instant now) {
        forgetExpired(nowNanos);
        List<LockEngineState.KeptKey> keys = new ArrayList<>(this.kept.size());
        for (Kept key : this.kept.values()) {
            keys.add(new LockEngineState.KeptKey(key.name, key.fence, now.minusNanos(nowNanos - key.acquiredAtNanos),
                    now.plusNanos(key.untilNanos - nowNanos)));
        }
        keys.sort(Comparator.comparing(LockEngineState.KeptKey::key));
        return keys;
    }

    private void forgetExpired(long nowNanos) {
        if (!this.kept.isEmpty()) {
            this.kept.values().removeIf((key) -> nowNanos - key.untilNanos >= 0);
        }
    }

    private record Kept(String name, long fence, long acquiredAtNanos, long untilNanos) {
    }
}
