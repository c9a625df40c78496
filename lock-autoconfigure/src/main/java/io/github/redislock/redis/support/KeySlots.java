package io.github.redislock.redis.support;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster hash slots and the library's names: a lock's companion keys (its queue of waiting clients and
 * their entries) and hand-off channels live in a namespace no lock key can produce, begin with the key prefix,
 * and live in the lock key's slot, as a Lua script may only touch keys of one slot; the instance registry's
 * entries live in that namespace too. Redlock's fence counter is named by {@code RedlockNode}, the one place
 * that writes it. Internal: used by the Redis stores of this library, not part of its API.
 */
public final class KeySlots {

    static final int SLOTS = 16384;

    private KeySlots() {
    }

    /** The slot Redis assigns to the key: CRC16 of its hash tag (first non-empty {...}) or of the whole key. */
    public static int slot(String key) {
        if (isAscii(key)) {
            // A char is then its byte: no encoding (one array less per acquisition).
            int open = key.indexOf('{');
            if (open >= 0) {
                int close = key.indexOf('}', open + 1);
                if (close > open + 1) {
                    return crc16(key, open + 1, close) & (SLOTS - 1);
                }
            }
            return crc16(key, 0, key.length()) & (SLOTS - 1);
        }
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

    /** See {@link LockKeys#MARKER}. */
    public static final String MARKER = LockKeys.MARKER;

    /** The list of clients waiting for a lock key, in turn order (see {@link #companion}). */
    public static String queueKey(String lockKey) {
        return companion(lockKey, "queue");
    }

    /** The hash of the waiting clients' entries: when each expires and the lease it asks for. */
    public static String queueEntriesKey(String lockKey) {
        return companion(lockKey, "entries");
    }

    private static final String[] QUEUE_KINDS = { "queue", "entries" };

    private static final String[] SHARE_KINDS = { "queue", "entries", "holders" };

    /** {@link #queueKey} and {@link #queueEntriesKey} together. */
    public static String[] queueKeys(String lockKey) {
        return companions(lockKey, QUEUE_KINDS);
    }

    /**
     * The keys of the lock scripts in their order: the lock key, {@link #queueKey} and {@link #queueEntriesKey}, in
     * one array (made for every acquisition).
     */
    public static String[] scriptKeys(String lockKey) {
        String[] keys = new String[1 + QUEUE_KINDS.length];
        keys[0] = lockKey;
        companions(lockKey, QUEUE_KINDS, keys, 1);
        return keys;
    }

    /**
     * {@link #queueKeys} and the sorted set of a shared key's holders (read locks, a semaphore's permits), in the
     * order {@code share.lua} takes them after the lock key.
     */
    public static String[] shareKeys(String lockKey) {
        return companions(lockKey, SHARE_KINDS);
    }

    /** The sorted set of a shared key's holders, scored by when each lease ends (see {@link #shareKeys}). */
    public static String holdersKey(String lockKey) {
        return companion(lockKey, "holders");
    }

    /**
     * The instance registry's entry for an owner id ({@code InstanceRegistry}): {@code <key prefix>~lock~instance:<id>},
     * where the id is a random id read back and checked ({@link LockValue#read}), or this instance's own. It
     * begins with the key prefix, for the ACL, and in the marker's namespace, which no lock name reaches; it is
     * read and written on its own, so its slot does not matter.
     */
    public static String instanceKey(String keyPrefix, String ownerId) {
        return keyPrefix + MARKER + "instance:" + ownerId;
    }

    /**
     * The start of the channel names on which releases hand a lock key to a waiting client; the client's id
     * completes it: {@code <key prefix>~lock~handoff:} on a standalone server (one channel per client). In a
     * cluster there is one per client and slot, {@code <key prefix>~lock~{<t>}handoff:}, named in the key's
     * slot so that the release script may publish on it, sharded where the server supports it. The key prefix
     * comes first so that an ACL can confine each application to its own channels ({@code &<key prefix>*}).
     */
    public static String handoffChannelPrefix(String keyPrefix, String lockKey, boolean clustered) {
        return clustered ? keyPrefix + MARKER + "{" + SlotTags.TAGS[slot(lockKey)] + "}handoff:"
                : keyPrefix + MARKER + "handoff:";
    }

    /**
     * A companion name of a lock key: it begins with the key, or with the part of the key before its first
     * brace (so with the key prefix, for an ACL's key pattern), then the {@link #MARKER}, and lies in the key's
     * slot:
     * <ul>
     * <li>{@code a{tag}b} (has a hash tag) → {@code a{tag}b~lock~<kind>}: the first tag still decides;</li>
     * <li>{@code sku:42} (no opening brace) → {@code sku:42~lock~{<t>}<kind>}, where {@code <t>} is a short
     * string chosen to hash to the key's slot;</li>
     * <li>anything else (<code>a{b</code>, <code>a{}b</code>: Redis hashes the whole key) →
     * <code>a~lock~{&lt;t&gt;}&lt;kind&gt;:a{b</code>.</li>
     * </ul>
     * No lock key contains the marker ({@link LockKeys} refuses one that does), so no lock key is a companion
     * name, and each companion name maps back to exactly one key.
     */
    static String companion(String lockKey, String kind) {
        return companions(lockKey, new String[] { kind })[0];
    }

    /** {@link #companion} of each kind, with the key's slot worked out once. */
    static String[] companions(String lockKey, String[] kinds) {
        return companions(lockKey, kinds, new String[kinds.length], 0);
    }

    /** {@link #companion} of each kind, into {@code names} from {@code from} on; returns {@code names}. */
    private static String[] companions(String lockKey, String[] kinds, String[] names, int from) {
        // Braces are ASCII, so scanning chars finds the same tag as Redis scanning bytes, without encoding.
        int open = lockKey.indexOf('{');
        int close = (open < 0) ? -1 : lockKey.indexOf('}', open + 1);
        if (close > open + 1) {
            for (int i = 0; i < kinds.length; i++) {
                names[from + i] = lockKey + MARKER + kinds[i];
            }
            return names;
        }
        String tag = SlotTags.TAGS[slot(lockKey)];
        for (int i = 0; i < kinds.length; i++) {
            // One concatenation per name, no intermediate string: this runs for every acquisition.
            names[from + i] = (open < 0) ? lockKey + MARKER + "{" + tag + "}" + kinds[i]
                    : lockKey.substring(0, open) + MARKER + "{" + tag + "}" + kinds[i] + ":" + lockKey;
        }
        return names;
    }

    /**
     * Whether the first opening brace of the text, if any, starts a hash tag ({@code {...}} with something
     * inside), as a key prefix's braces must: the hand-off channels, which begin with the prefix, then lie in
     * the slot of every key.
     */
    static boolean bracesFormHashTag(String text) {
        int open = text.indexOf('{');
        if (open < 0) {
            return true;
        }
        int close = text.indexOf('}', open + 1);
        return close > open + 1;
    }

    /** CRC16-CCITT (XMODEM), as Redis Cluster uses. */
    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = crc16Step(crc, bytes[i] & 0xFF);
        }
        return crc & 0xFFFF;
    }

    /** {@link #crc16(byte[], int, int)} of ASCII text, whose chars are its bytes. */
    private static int crc16(String ascii, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = crc16Step(crc, ascii.charAt(i));
        }
        return crc & 0xFFFF;
    }

    private static int crc16Step(int crc, int value) {
        crc ^= value << 8;
        for (int bit = 0; bit < 8; bit++) {
            crc = ((crc & 0x8000) != 0) ? ((crc << 1) ^ 0x1021) : (crc << 1);
        }
        return crc;
    }

    private static boolean isAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
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
