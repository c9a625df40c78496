package io.github.redislock.engine;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The keys this application keeps in the store after their work ended (holdAtLeast), remembered for the Actuator
 * endpoint only: the engine's decisions never read it, the store alone says whether a key is still kept. One
 * key's life, from the moment its last holder here closes it:
 * <pre>
 * state     event                                                   next state
 * HELD      closed when holdAtLeast has passed since this holder    RELEASED: deleted, or handed to the next
 *           got it (or none was asked for)                          waiter (as without it)
 * HELD      closed before holdAtLeast has passed: the store's       KEPT: owned by nobody for N ms; no thread,
 *           release with "keep N ms" (N = the rest of the minimum,  no renewal, no hand-over: nobody, here or
 *           rounded up) finds the key ours                          elsewhere, can enter
 * HELD      closed, but the key was no longer ours                  LOST (signalled), nothing kept
 * KEPT      the keep runs out in the store                          FREE: the next take gets the key, with a
 *                                                                   larger fencing token
 * </pre>
 * There is no way back from KEPT to HELD: a new acquisition, by a thread here or another application, is a new
 * holder with its own token, and only once the key has expired. The engine forgets a kept key here when this
 * JVM's clock says its keep ran out (counted from when the release's reply arrived, so not before the store lets
 * it go: the display errs towards "still kept"), or when a thread here takes the key again. (On a single Redis
 * the kept key holds {@code '~kept:<last fence>'} with PX N, and queued applications are told to look again.)
 */
final class KeptLocks {

    private final Map<String, Kept> kept = new ConcurrentHashMap<>();

    /** The release of {@code entry}, whose reply arrived at {@code repliedAtNanos}, kept the key that much longer. */
    void kept(Entry entry, long keepMillis, long repliedAtNanos) {
        forgetExpired(System.nanoTime());
        this.kept.put(entry.lock.key(), new Kept(entry.lock.key(), entry.lock.fencingToken(), entry.holdFromNanos,
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
