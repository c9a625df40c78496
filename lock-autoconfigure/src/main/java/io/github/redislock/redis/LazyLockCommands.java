package io.github.redislock.redis;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lock commands on the shared connection of Boot's {@link LettuceConnectionFactory}, looked up on first use
 * rather than at start-up, so that an application starts while Redis is down (its lock calls then fail, as they
 * should) as it would without us. A failed lookup is retried by the next call.
 */
final class LazyLockCommands implements LockCommands {

    private final LettuceConnectionFactory factory;

    private volatile @Nullable LockCommands resolved;

    LazyLockCommands(LettuceConnectionFactory factory) {
        this.factory = factory;
    }

    private LockCommands commands() {
        LockCommands commands = this.resolved;
        if (commands == null) {
            synchronized (this) {
                commands = this.resolved;
                if (commands == null) {
                    commands = LettuceLockCommands.sharedConnectionOf(this.factory);
                    this.resolved = commands;
                }
            }
        }
        return commands;
    }

    @Override
    public List<?> acquire(LockKey key, boolean mayQueue, String[] args) {
        return commands().acquire(key, mayQueue, args);
    }

    @Override
    public @Nullable Long release(LockKey key, String[] args) {
        return commands().release(key, args);
    }

    @Override
    public String serverVersion() {
        return commands().serverVersion();
    }

    @Override
    public List<?> renew(String[] keys, String[] args) {
        return commands().renew(keys, args);
    }

    @Override
    public List<?> share(String[] keys, String[] args) {
        return commands().share(keys, args);
    }

    @Override
    public List<?> renewShares(String[] keys, String[] args) {
        return commands().renewShares(keys, args);
    }

    @Override
    public @Nullable CompletionStage<List<?>> renewAsync(String[] keys, String[] args) {
        return commands().renewAsync(keys, args);
    }

    @Override
    public long renewAndWait(boolean share, String[] keys, String[] args, int replicas, long timeoutMillis) {
        return commands().renewAndWait(share, keys, args, replicas, timeoutMillis);
    }

    @Override
    public boolean keepsOrder() {
        LockCommands commands = this.resolved;
        return commands == null || commands.keepsOrder();
    }

    @Override
    public void releaseBehind(LockKey key, String[] args) {
        LockCommands commands = this.resolved;
        if (commands != null) { // otherwise nothing was ever sent
            commands.releaseBehind(key, args);
        }
    }

    @Override
    public @Nullable String get(String key) {
        return commands().get(key);
    }
}
