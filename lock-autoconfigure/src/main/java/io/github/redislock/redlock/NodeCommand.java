package io.github.redislock.redlock;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * One script call as {@link NodeCalls} send it, built once for all the nodes of a round (whose keys and arguments are
 * the same on every node), in the forms either transport needs: strings for the template, bytes for Lettuce. With
 * {@code readAfter}, the value of that key is read after the script on the same connection (the fencing counter after
 * the acquisition), in the same round trip where the transport can pipeline. Immutable, so that a node answering on
 * another thread (an undo sent from an I/O thread) sees it whole.
 */
final class NodeCommand {

    final NodeScript script;

    final String[] keys;

    final String[] args;

    final byte[][] keyBytes;

    /** How many keys, as the text Redis reads (EVALSHA's numkeys). */
    final byte[] keyCount;

    final byte[][] argBytes;

    final @Nullable String readAfter;

    final byte @Nullable [] readAfterBytes;

    NodeCommand(NodeScript script, String[] keys, String[] args, @Nullable String readAfter) {
        this.script = script;
        this.keys = keys;
        this.args = args;
        this.keyBytes = bytes(keys);
        this.keyCount = Integer.toString(keys.length).getBytes(StandardCharsets.US_ASCII);
        this.argBytes = bytes(args);
        this.readAfter = readAfter;
        this.readAfterBytes = (readAfter != null) ? readAfter.getBytes(StandardCharsets.UTF_8) : null;
    }

    NodeCommand(NodeScript script, String[] keys, String... args) {
        this(script, keys, args, null);
    }

    private static byte[][] bytes(String[] texts) {
        byte[][] bytes = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            bytes[i] = texts[i].getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }
}
