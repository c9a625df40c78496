package io.github.redislock.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * The arguments of one {@code EVALSHA} or {@code EVAL} of a lock script (the SHA-1 or the body, the number of
 * keys, the keys, the arguments), written straight into Lettuce's output buffer. The same bytes on the wire as
 * Lettuce's own {@code evalsha(...)}, without what that costs per call and argument: an encoded copy of every
 * key and argument, an argument object around each, and a {@code Long.toString} for the SHA-1's and every longer
 * argument's length (Lettuce writes a length of 10 or more through a string). Every locked call sends two
 * scripts, so this is most of what a lock adds to a client's own allocation. Keys and arguments are strings,
 * written as UTF-8; a reused key array may be sent in part ({@code keyCount}).
 * <p>
 * Used on a standalone connection only ({@link LettuceLockCommands#supports}): {@link #getFirstEncodedKey} is
 * what a cluster connection would route by, and is given all the same.
 */
final class ScriptArgs extends CommandArgs<byte[], byte[]> {

    private static final byte[] CRLF = { '\r', '\n' };

    /** A SHA-1 in hexadecimal. */
    private static final int SHA_LENGTH = 40;

    /** The script's SHA-1 (ASCII) for EVALSHA, or its body for EVAL. */
    private final byte[] script;

    private final String[] keys;

    private final int keyCount;

    private final String[] args;

    /**
     * @param script the SHA-1 in ASCII (EVALSHA) or the body (EVAL), never modified
     * @param keys the script's keys, of which the first {@code keyCount} are sent; never modified
     * @param args the script's arguments, never modified
     */
    ScriptArgs(byte[] script, String[] keys, int keyCount, String[] args) {
        super(ByteArrayCodec.INSTANCE);
        this.script = script;
        this.keys = keys;
        this.keyCount = keyCount;
        this.args = args;
    }

    @Override
    public int count() {
        return 2 + this.keyCount + this.args.length;
    }

    @Override
    public void encode(ByteBuf buf) {
        writeBulk(buf, this.script);
        writeBulk(buf, this.keyCount);
        for (int i = 0; i < this.keyCount; i++) {
            writeBulk(buf, this.keys[i]);
        }
        for (String arg : this.args) {
            writeBulk(buf, arg);
        }
    }

    @Override
    public ByteBuffer getFirstEncodedKey() {
        return (this.keyCount > 0) ? ByteBuffer.wrap(this.keys[0].getBytes(StandardCharsets.UTF_8)) : null;
    }

    /**
     * As Lettuce's own arguments show themselves ({@code <sha> 1 key<...> value<...>}), for tracing and logs that
     * show commands; a script body (EVAL) is not shown.
     */
    @Override
    public String toCommandString() {
        StringBuilder text = new StringBuilder((this.script.length == SHA_LENGTH)
                ? new String(this.script, StandardCharsets.US_ASCII) : "<script>").append(' ').append(this.keyCount);
        for (int i = 0; i < this.keyCount; i++) {
            text.append(" key<").append(this.keys[i]).append('>');
        }
        for (String arg : this.args) {
            text.append(" value<").append(arg).append('>');
        }
        return text.toString();
    }

    private static void writeBulk(ByteBuf buf, byte[] bytes) {
        buf.writeByte('$');
        writeDigits(buf, bytes.length);
        buf.writeBytes(CRLF);
        buf.writeBytes(bytes);
        buf.writeBytes(CRLF);
    }

    private static void writeBulk(ByteBuf buf, long number) {
        buf.writeByte('$');
        writeDigits(buf, digits(number));
        buf.writeBytes(CRLF);
        writeDigits(buf, number);
        buf.writeBytes(CRLF);
    }

    private static void writeBulk(ByteBuf buf, String text) {
        buf.writeByte('$');
        writeDigits(buf, ByteBufUtil.utf8Bytes(text));
        buf.writeBytes(CRLF);
        ByteBufUtil.writeUtf8(buf, text);
        buf.writeBytes(CRLF);
    }

    /** A count or length (never negative) in decimal ASCII, with no string made for it. */
    private static void writeDigits(ByteBuf buf, long number) {
        long power = 1;
        while (power <= number / 10) {
            power *= 10;
        }
        for (; power > 0; power /= 10) {
            buf.writeByte((int) ('0' + (number / power) % 10));
        }
    }

    private static int digits(long number) {
        int digits = 1;
        for (long rest = number / 10; rest > 0; rest /= 10) {
            digits++;
        }
        return digits;
    }
}
