package io.github.redislock.redis;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A release by a thread of this application (the "held by T" rows of {@link Waiting}): the lock is passed to
 * the next thread waiting here while the cohort is within its bounds ({@link LocalHandover}), or released in
 * Redis, where it goes to the next application in the key's queue; a release that finds nobody waiting here
 * also takes this application out of that queue, in the same round trip.
 */
final class Releases {

    private static final Log logger = LogFactory.getLog(Releases.class);

    private final LockProtocol protocol;

    private final String clientId;

    private final Lines lines;

    private final LocalHandover handover;

    Releases(LockProtocol protocol, String clientId, Lines lines, LocalHandover handover) {
        this.protocol = protocol;
        this.clientId = clientId;
        this.lines = lines;
        this.handover = handover;
    }

    /**
     * Releases a lock a thread here holds: passes it to the next thread waiting here while the cohort is
     * within its bounds, else in Redis. If nobody here waits for the key the release also takes this
     * application out of the key's queue; a thread that joined meanwhile then looks at Redis at once, as its
     * queue entry may have gone with it. With {@code keepMillis} above 0 (holdAtLeast) the key is kept that much
     * longer: such a release is never passed to a thread here, and ends the application's turn; the key stays
     * in Redis, owned by nobody, until it expires, so threads waiting here wait for that expiry like every other
     * application. Their first one looks at Redis at once, to time its next look by the key's PTTL.
     * @param wasHeld false when the lock had already been found lost: it then only goes to Redis
     * @return true when released or passed on, false when the key was no longer ours
     */
    boolean release(HeldLock lock, boolean wasHeld, long keepMillis) {
        LockKey key = lock.key;
        Line line = this.lines.get(key.name);
        if (line != null && wasHeld && keepMillis == 0 && this.handover.passOn(line, lock)) {
            return true;
        }
        if (line != null) {
            line.turnEnds();
        }
        boolean leaving = line != null && line.releaseLeaves();
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + key + "': releasing" + (leaving ? ", leaving its queue (nobody waits here)" : ""));
        }
        try {
            return this.protocol.release(key, lock.value, leaving ? this.clientId : null,
                    LocalHandover.lastLocalFence(lock), keepMillis);
        }
        finally {
            if (leaving) {
                this.lines.leftQueue(key.name, line);
            }
            else if (keepMillis > 0 && line != null) {
                line.tryNow();
            }
        }
    }
}
