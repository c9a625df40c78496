package io.github.redislock.core;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster hash slots, so that a lock's companion keys (its queue of waiting clients) always live in the
 * same slot as the lock key, whatever braces the key contains: a Lua script may only touch keys of one slot.
 */
final class KeySlots {

    static final int SLOTS = 16384;

    private KeySlots() {
    }

    /** The slot Redis assigns to the key: CRC16 of its hash tag (first non-empty {...}) or of the whole key. */
    static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                return crc16(bytes, open + 1, close) & (SLOTS - 1);
            }
        }
        return crc16(bytes, 0, bytes.length) & (SLOTS - 1);
    }

    /** The list of clients waiting for a lock key, in turn order (see {@link #companion}). */
    static String queueKey(String lockKey) {
        return companion(lockKey, "queue");
    }

    /** The hash of the waiting clients' entries: when each expires and the lease it asks for. */
    static String queueEntriesKey(String lockKey) {
        return companion(lockKey, "queue:entries");
    }

    /**
     * The start of the channel names on which releases hand a lock key to a waiting client; the client's id
     * completes it. A standalone server has one channel per client. In a cluster there is one per client and
     * slot, named in the key's slot so that the release script may publish on it, sharded where the server
     * supports it.
     */
    static String handoffChannelPrefix(String lockKey, boolean clustered) {
        return clustered ? "{" + SlotTags.TAGS[slot(lockKey)] + "}redis-lock:handoff:" : "redis-lock:handoff:";
    }

    /**
     * A name in the same slot as the lock key, readable where possible:
     * <ul>
     * <li>{@code a{tag}b} (has a hash tag) → {@code a{tag}b:<suffix>}: the first tag still decides;</li>
     * <li>{@code sku:42:lock} (no braces) → {@code {sku:42:lock}:<suffix>}: the whole key becomes the tag;</li>
     * <li>anything else (stray or empty braces) → {@code {<t>}:<suffix>:<key>} where {@code <t>} is a short
     * string chosen to hash to the key's slot.</li>
     * </ul>
     */
    static String companion(String lockKey, String suffix) {
        // Braces are ASCII, so scanning chars finds the same tag as Redis scanning bytes, without encoding.
        int open = lockKey.indexOf('{');
        if (open >= 0) {
            int close = lockKey.indexOf('}', open + 1);
            if (close > open + 1) {
                return lockKey + ":" + suffix;
            }
        }
        else if (lockKey.indexOf('}') < 0) {
            return "{" + lockKey + "}:" + suffix;
        }
        return "{" + SlotTags.TAGS[slot(lockKey)] + "}:" + suffix + ":" + lockKey;
    }

    /** CRC16-CCITT (XMODEM), as Redis Cluster uses. */
    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = ((crc & 0x8000) != 0) ? ((crc << 1) ^ 0x1021) : (crc << 1);
            }
        }
        return crc & 0xFFFF;
    }

    private static int indexOf(byte[] bytes, byte value, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == value) {
                return i;
            }
        }
        return -1;
    }

    /** For every slot, a short brace-free string that hashes to it; built once, on first need. */
    private static final class SlotTags {

        static final String[] TAGS = build();

        private static String[] build() {
            String[] tags = new String[SLOTS];
            int found = 0;
            for (long n = 0; found < SLOTS; n++) {
                String candidate = Long.toString(n, 36);
                byte[] bytes = candidate.getBytes(StandardCharsets.US_ASCII);
                int slot = crc16(bytes, 0, bytes.length) & (SLOTS - 1);
                if (tags[slot] == null) {
                    tags[slot] = candidate;
                    found++;
                }
            }
            return tags;
        }
    }
}
