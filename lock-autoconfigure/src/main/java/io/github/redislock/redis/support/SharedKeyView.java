package io.github.redislock.redis.support;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockMode;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.Holding;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.Sharing;

/**
 * The holder view of a shared key (read locks, a semaphore's permits; see {@code share.lua}): its kind read from the
 * marker under the lock key ({@code ~r:<fence>}, {@code ~s<N>:<fence>}), and its holders from the entries of its
 * holders set, each read back as the library writes them and nothing else: {@code <token>:<fence>} (a holder, named
 * from its token's id; on Redlock a permit's begins with its slot, {@code <slot>/}), {@code <client id>_<kind>_<n>} (a
 * waiter let in and not yet there, named from the client id, no fence yet), {@code ~kept:<fence>} (kept by holdAtLeast,
 * owned by nobody: not listed, but the key counts as {@link State#KEPT} while only such entries are left). On several
 * nodes (Redlock) a holder counts when a majority of the agreeing nodes have its token; its lease is what that majority
 * still has, and its fencing token is unknown (each node keeps a fence of its own), but for the key's highest, which is
 * the fence counter.
 */
final class SharedKeyView {

    private SharedKeyView() {
    }

    /** The sharing a lock key's value says the key is in, or {@code null} when it is no shared key's marker. */
    static @Nullable Sharing sharing(@Nullable String value) {
        if (value == null) {
            return null;
        }
        int colon = value.indexOf(':');
        if (colon < 2 || value.charAt(0) != '~' || !digits(value, colon + 1, value.length(), 18)) {
            return null;
        }
        if (colon == 2 && value.charAt(1) == 'r') {
            return Sharing.READ;
        }
        if (value.charAt(1) != 's' || !digits(value, 2, colon, 9)) {
            return null;
        }
        int permits = Integer.parseInt(value, 2, colon, 10);
        return (permits > 1) ? new Sharing(LockMode.WRITE, permits) : null;
    }

    /**
     * The key as the agreeing readings show it.
     * @param sharing what the marker says
     * @param quorum how many readings must hold a holder (1 on a single Redis)
     * @param names the instance behind an owner id, {@code null} when unknown
     * @param counter the fence counter of a store that keeps the fencing token apart, {@code null} for none
     */
    static LockInspection inspect(String key, Sharing sharing, List<NodeReads.Reading> agreeing, int quorum,
            Function<String, @Nullable InstanceInfo> names, @Nullable Integer waiting, @Nullable Long counter) {
        Map<String, List<NodeReads.Reading.Share>> byOwner = new LinkedHashMap<>();
        for (NodeReads.Reading reading : agreeing) {
            for (NodeReads.Reading.Share share : reading.holders()) {
                int colon = share.entry().lastIndexOf(':');
                String owner = (colon < 0) ? share.entry() : share.entry().substring(0, colon);
                byOwner.computeIfAbsent(owner, (any) -> new ArrayList<>()).add(share);
            }
        }
        List<Holding> holdings = new ArrayList<>();
        boolean kept = false;
        Holding highest = null;
        for (Map.Entry<String, List<NodeReads.Reading.Share>> owner : byOwner.entrySet()) {
            List<NodeReads.Reading.Share> shares = owner.getValue();
            if (shares.size() < quorum) {
                continue;
            }
            shares.sort(Comparator.comparingLong(NodeReads.Reading.Share::millisLeft).reversed());
            Duration left = Duration.ofMillis(shares.get(quorum - 1).millisLeft());
            if (owner.getKey().equals("~kept")) {
                kept = true;
                continue;
            }
            Holding holding = holding(shares.get(0).entry(), owner.getKey(), left, quorum == 1, names);
            holdings.add(holding);
            if (highest == null || fence(holding) > fence(highest)) {
                highest = holding;
            }
        }
        if (highest == null) {
            return kept ? new LockInspection(key, State.KEPT, null, counter, null, null, waiting, sharing, List.of())
                    : LockInspection.free(key, waiting);
        }
        Long fence = (counter != null) ? counter : highest.fencingToken();
        LockValue.Read read = new LockValue.Read(State.HELD, null, fence);
        return new LockInspection(key, State.HELD, highest.holder(), fence, read.since(Instant.now()),
                highest.leaseRemaining(), waiting, sharing, holdings);
    }

    /** One holder from its entry: a token's holder named by the token's id, a waiter let in by its client id. */
    private static Holding holding(String entry, String owner, Duration left, boolean fenced,
            Function<String, @Nullable InstanceInfo> names) {
        // A Redlock permit's entry begins with its slot: '<slot>/<token>:<fence>'.
        int slash = entry.indexOf('/');
        LockValue.Read read = LockValue.read((slash > 0 && digits(entry, 0, slash, 9)) ? entry.substring(slash + 1)
                : entry);
        String id = (read.state() == State.HELD) ? read.ownerId() : waiterClient(owner);
        InstanceInfo instance = (id != null) ? names.apply(id) : null;
        Holder holder = (instance != null) ? Holder.of(instance) : Holder.UNKNOWN;
        return new Holding(holder, (fenced && read.state() == State.HELD) ? read.fence() : null, left);
    }

    /** The client id of a waiter's id ({@code <client id>_<kind>_<n>}), or {@code null} for any other text. */
    private static @Nullable String waiterClient(String entry) {
        int id = LockTokens.ID_LENGTH;
        if (entry.length() < id + 4 || entry.length() > 64 || entry.charAt(id) != '_'
                || !LockValue.isId(entry, 0, id)) {
            return null;
        }
        return entry.substring(0, id);
    }

    private static long fence(Holding holding) {
        return (holding.fencingToken() != null) ? holding.fencingToken() : Long.MIN_VALUE;
    }

    private static boolean digits(String text, int from, int to, int most) {
        if (to - from < 1 || to - from > most) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
