package io.github.redislock.benchmarks.clients;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * The floor of what any Redlock costs over the same masters: {@link RawLettuceLock}'s two commands sent to every
 * master at once, one shared Lettuce connection per master, with nothing a real Redlock adds (no validity or drift
 * check, no fencing token, no renewal, no undo beyond the release). A take waits for all masters' answers, as the
 * algorithm asks every master; it holds the lock when a majority said {@code OK}, and is released on every master
 * either way. Every Redlock sends at least these ten commands in two rounds per cycle; a real one's ratio to this is
 * its overhead, and this one's ratio to {@link RawLettuceLock} is what the round trips alone cost on the machine.
 */
public final class RawLettuceRedlock implements AutoCloseable {

    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

    private final RedisClient client;

    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

    private final List<RedisAsyncCommands<String, String>> masters = new ArrayList<>();

    private final String unlockSha;

    private final SetArgs acquireArgs;

    public RawLettuceRedlock(List<String> redisUrls, long leaseMillis) {
        this.client = RedisClient.create();
        String sha = null;
        for (String url : redisUrls) {
            StatefulRedisConnection<String, String> connection = this.client.connect(RedisURI.create(url));
            this.connections.add(connection);
            this.masters.add(connection.async());
            sha = connection.sync().scriptLoad(COMPARE_AND_DELETE);
        }
        this.unlockSha = sha;
        this.acquireArgs = SetArgs.Builder.nx().px(leaseMillis);
    }

    /** One attempt on every master; returns the token to release with, or {@code null} without a majority. */
    public String tryLock(String key) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
        List<RedisFuture<String>> answers = new ArrayList<>(this.masters.size());
        for (RedisAsyncCommands<String, String> master : this.masters) {
            answers.add(master.set(key, token, this.acquireArgs));
        }
        int taken = 0;
        for (RedisFuture<String> answer : answers) {
            if ("OK".equals(answer.toCompletableFuture().join())) {
                taken++;
            }
        }
        if (taken > this.masters.size() / 2) {
            return token;
        }
        unlock(key, token);
        return null;
    }

    /** Deletes the key on every master that still holds the token; returns whether a majority did. */
    public boolean unlock(String key, String token) {
        String[] keys = { key };
        List<CompletableFuture<Long>> answers = new ArrayList<>(this.masters.size());
        for (RedisAsyncCommands<String, String> master : this.masters) {
            answers.add(master.<Long>evalsha(this.unlockSha, ScriptOutputType.INTEGER, keys, token)
                .toCompletableFuture());
        }
        int deleted = 0;
        for (CompletableFuture<Long> answer : answers) {
            Long count = answer.join();
            if (count != null && count == 1L) {
                deleted++;
            }
        }
        return deleted > this.masters.size() / 2;
    }

    @Override
    public void close() {
        this.connections.forEach(StatefulRedisConnection::close);
        this.client.shutdown();
    }
}
