package io.github.redislock.redlock;

import java.time.Duration;
import java.util.List;

import io.github.redislock.engine.LockStore;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.storekit.RedisNodes;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;

/**
 * Redlock under the kit: each application a {@link RedlockStore} on factories of its own, one per master, of the
 * client library given (on Lettuce its calls go out on the shared connections without blocking, on Jedis as blocking
 * calls on the store's threads).
 * A lock is lost by deleting its key on every master (a renewal then finds no majority holding it); residue is
 * any key beginning with the lock key on any master, but the fencing counter, which outlives locks by design.
 */
final class RedlockStoreFixture implements StoreFixture {

    private final RedlockMasters masters;

    private final ClientLibrary library;

    RedlockStoreFixture(RedlockMasters masters, ClientLibrary library) {
        this.masters = masters;
        this.library = library;
    }

    @Override
    public LockStore newStore() {
        return new RedlockStore(this.masters.connect(Duration.ofSeconds(5), this.library), "kit:");
    }

    @Override
    public void loseLock(LockStore holder, String key) {
        this.masters.all().forEach((master) -> master.command("DEL", key));
    }

    /**
     * A share is its entry among the key's holders on each master ({@code [<slot>/]<attempt token>:<that master's
     * fence>}): those of the holder's token go, on every master.
     */
    @Override
    public void losePermit(LockStore holder, String key, String token) {
        String attempt = token.substring(0, token.lastIndexOf(':') + 1);
        String holders = KeySlots.holdersKey(key);
        for (RedisServer master : this.masters.all()) {
            for (Object entry : (List<?>) master.command("ZRANGE", holders, "0", "-1")) {
                String text = entry.toString();
                if (text.substring(text.indexOf('/') + 1).startsWith(attempt)) {
                    master.command("ZREM", holders, text);
                }
            }
        }
    }

    @Override
    public List<String> residue(String key) {
        String counter = RedlockNode.fenceKey(key);
        return RedisNodes.keysOf(this.masters.all(), key, counter::equals);
    }

    @Override
    public boolean leased() {
        return true;
    }
}
