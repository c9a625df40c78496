package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock scripts' arguments written straight into Lettuce's buffer are byte for byte what Lettuce's own
 * {@code evalsha} writes for them: lengths of one, two and three digits, non-ASCII text, and a key array sent in
 * part.
 */
class ScriptArgsTest {

    private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

    @Test
    void writesWhatLettuceWritesForTheSameScriptCall() {
        String[] keys = { "bench:42", "bench:42~lock~{a}queue", "bench:42~lock~{a}entries" };
        String[] args = { "9", "tok.1z", "x".repeat(120), "sku:été:ß" };

        assertThat(written(new ScriptArgs(SHA.getBytes(StandardCharsets.US_ASCII), keys, 3, args)))
            .isEqualTo(lettuces(keys, 3, args));
    }

    @Test
    void sendsOnlyTheFirstKeysItIsToldTo() {
        String[] keys = { "lock-key", "queue", "entries" };
        String[] args = { "token", "30000" };
        ScriptArgs scriptArgs = new ScriptArgs(SHA.getBytes(StandardCharsets.US_ASCII), keys, 1, args);

        assertThat(written(scriptArgs)).isEqualTo(lettuces(keys, 1, args));
        assertThat(scriptArgs.count()).isEqualTo(5);
    }

    @Test
    void showsItselfAsLettucesOwnArgumentsDo() {
        String[] keys = { "lock-key", "queue", "entries" };
        String[] args = { "token", "30000" };

        assertThat(new ScriptArgs(SHA.getBytes(StandardCharsets.US_ASCII), keys, 3, args).toCommandString())
            .isEqualTo(lettuce(keys, 3, args).toCommandString());
    }

    private static String written(CommandArgs<byte[], byte[]> args) {
        ByteBuf buf = Unpooled.buffer();
        args.encode(buf);
        return buf.toString(StandardCharsets.UTF_8);
    }

    private static String lettuces(String[] keys, int keyCount, String[] args) {
        CommandArgs<byte[], byte[]> lettuce = lettuce(keys, keyCount, args);
        assertThat(lettuce.count()).isEqualTo(2 + keyCount + args.length);
        return written(lettuce);
    }

    /** What Lettuce's {@code evalsha} builds for the call. */
    private static CommandArgs<byte[], byte[]> lettuce(String[] keys, int keyCount, String[] args) {
        CommandArgs<byte[], byte[]> lettuce = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(SHA).add(keyCount);
        for (int i = 0; i < keyCount; i++) {
            lettuce.addKey(keys[i].getBytes(StandardCharsets.UTF_8));
        }
        for (String arg : args) {
            lettuce.addValue(arg.getBytes(StandardCharsets.UTF_8));
        }
        return lettuce;
    }
}
