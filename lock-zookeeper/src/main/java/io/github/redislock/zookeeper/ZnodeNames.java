package io.github.redislock.zookeeper;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import io.github.redislock.LockException;

/**
 * Lock names (arbitrary text: slashes, spaces, dots, any Unicode) as znode names, one to one. Letters and digits
 * of ASCII, {@code -}, {@code _}, {@code .} and {@code :} stay as they are; every other character becomes the
 * percent-encoded bytes of its UTF-8 form ({@code %2F} for {@code /}, {@code %25} for {@code %} itself), as in a URL.
 * The names {@code .} and {@code ..}, which ZooKeeper refuses, have their dots encoded too. Percent-decoding gives
 * the name back, so no two names share a node. The result holds no character ZooKeeper refuses in a path
 * (no {@code /}, no control or surrogate characters) and is never empty.
 */
final class ZnodeNames {

    /**
     * The longest lock name, in UTF-8 bytes, as on Redis: its node name is at most three times as long, well
     * within what one ZooKeeper request carries.
     */
    static final int MAX_NAME_BYTES = 512;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private ZnodeNames() {
    }

    /**
     * The node name of a lock name.
     * @throws LockException if the name is empty, longer than {@link #MAX_NAME_BYTES} in UTF-8, or not valid
     * Unicode (an unpaired surrogate, which no encoding can give back)
     */
    static String encode(String name) {
        if (name.isEmpty()) {
            throw new LockException("A lock name must not be empty");
        }
        byte[] utf8 = utf8(name);
        if (utf8.length > MAX_NAME_BYTES) {
            throw new LockException("Lock name '" + name.substring(0, Math.min(name.length(), 40))
                    + "...' is longer than " + MAX_NAME_BYTES + " bytes");
        }
        boolean onlyDots = name.equals(".") || name.equals("..");
        StringBuilder node = new StringBuilder(utf8.length + 8);
        for (byte b : utf8) {
            int c = b & 0xFF;
            if (!onlyDots && kept(c)) {
                node.append((char) c);
            }
            else {
                node.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return node.toString();
    }

    private static boolean kept(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                || c == '.' || c == ':';
    }

    private static byte[] utf8(String name) {
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .encode(CharBuffer.wrap(name));
            byte[] utf8 = new byte[bytes.remaining()];
            bytes.get(utf8);
            return utf8;
        }
        catch (CharacterCodingException ex) {
            // No cause: a LockException with one is the store's failure (the endpoint's 500); this is the caller's.
            throw new LockException("Lock name '" + name + "' is not valid Unicode (an unpaired surrogate)");
        }
    }

    /** The lock name of a node name made by {@link #encode}; for tests and the endpoint's readers. */
    static String decode(String node) {
        byte[] bytes = new byte[node.length()];
        int n = 0;
        for (int i = 0; i < node.length(); i++) {
            char c = node.charAt(i);
            if (c == '%') {
                bytes[n++] = (byte) Integer.parseInt(node.substring(i + 1, i + 3), 16);
                i += 2;
            }
            else {
                bytes[n++] = (byte) c;
            }
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }
}
