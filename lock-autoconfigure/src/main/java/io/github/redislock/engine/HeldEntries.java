package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The keys this application holds now through one {@link LockEngine}, for reentrancy, store-reported losses and
 * the endpoint: the only owner of that state. A key has one entry when it is held exclusively, and one per holder
 * here when it is shared (readers, a semaphore's permits, each taken by a thread of this application).
 * <p>
 * Entries are added when the store returns a lock and removed when its last acquisition ends. The arrays under a
 * key are never changed in place (each change replaces the array, atomically per key), so readers need no lock.
 */
final class HeldEntries {

    private static final Entry[] NONE = new Entry[0];

    private final ConcurrentHashMap<String, Entry[]> byKey = new ConcurrentHashMap<>();

    /**
     * Adds a lock the store just took. The store holds an exclusive key for nobody else here, so any entry left
     * under it belongs to a lock found lost (its section still running): it stays, and goes when that one ends.
     */
    void add(Entry entry) {
        this.byKey.merge(entry.lock.key(), new Entry[] { entry }, (present, added) -> {
            Entry[] more = Arrays.copyOf(present, present.length + 1);
            more[present.length] = added[0];
            return more;
        });
    }

    /** Removes the entry (if still there); the key goes with its last entry. */
    void remove(Entry entry) {
        String key = entry.lock.key();
        Entry[] only = this.byKey.get(key);
        if (only != null && only.length == 1 && only[0] == entry && this.byKey.remove(key, only)) {
            // The common case, without the capturing function below: the key's one entry, still that array.
            return;
        }
        this.byKey.computeIfPresent(key, (name, present) -> {
            if (present.length == 1) {
                return (present[0] == entry) ? null : present;
            }
            int at = indexOf(present, entry);
            if (at < 0) {
                return present;
            }
            Entry[] fewer = new Entry[present.length - 1];
            System.arraycopy(present, 0, fewer, 0, at);
            System.arraycopy(present, at + 1, fewer, at, fewer.length - at);
            return fewer;
        });
    }

    /** The entry of the key that this thread owns and has not ended, if any. */
    @Nullable Entry ownedByCurrentThread(String key) {
        Thread self = Thread.currentThread();
        for (Entry entry : this.byKey.getOrDefault(key, NONE)) {
            if (entry.isOwnedBy(self)) {
                return entry;
            }
        }
        return null;
    }

    /** The entry registered for this store lock, if any. */
    @Nullable Entry of(StoreLock lock) {
        for (Entry entry : this.byKey.getOrDefault(lock.key(), NONE)) {
            if (entry.lock == lock) {
                return entry;
            }
        }
        return null;
    }

    /** Every entry, for the endpoint's snapshot. */
    List<Entry> all() {
        List<Entry> all = new ArrayList<>();
        for (Entry[] entries : this.byKey.values()) {
            all.addAll(Arrays.asList(entries));
        }
        return all;
    }

    private static int indexOf(Entry[] entries, Entry entry) {
        for (int i = 0; i < entries.length; i++) {
            if (entries[i] == entry) {
                return i;
            }
        }
        return -1;
    }
}
