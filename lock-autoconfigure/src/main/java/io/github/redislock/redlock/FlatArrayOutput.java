package io.github.redislock.redlock;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;

import org.jspecify.annotations.Nullable;

/**
 * A script's array reply, which is flat for every script the nodes run: a list of exactly its size, without the
 * nesting bookkeeping of Lettuce's general script output.
 */
final class FlatArrayOutput extends CommandOutput<byte[], byte[], List<Object>> {

    FlatArrayOutput() {
        super(ByteArrayCodec.INSTANCE, null);
    }

    @Override
    public void multi(int count) {
        if (this.output == null) {
            this.output = new ArrayList<>(Math.max(count, 0));
        }
    }

    @Override
    public void set(long integer) {
        list().add(integer);
    }

    @Override
    public void set(@Nullable ByteBuffer bytes) {
        list().add((bytes != null) ? this.codec.decodeValue(bytes) : null);
    }

    private List<Object> list() {
        if (this.output == null) {
            this.output = new ArrayList<>();
        }
        return this.output;
    }
}
