package io.github.redislock.redlock;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * A lock is lost by deleting its holder's value on every master (a renewal then finds no majority holding it);
 * residue is any key beginning with the lock key on any master, but the fencing counter, which outlives locks by
 * design.
 */
final class RedlockStoreFixture implements StoreFixture {

    /** KEYS[1] the lock key, ARGV[1] its holder's {@code <attempt token>:}: deleted only while that holder's. */
    private static final String DELETE_IF_OWNED = "local v = redis.call('GET', KEYS[1]) "
            + "if v and string.sub(v, 1, #ARGV[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

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

    /**
     * The holder's value goes from every master, compared first: the masters are emptied one after another while
     * other applications keep trying, and a plain {@code DEL} on a master reached later would also take away a lock
     * one of them took there in the meantime (two leaders at once, the second never lost by the check's doing).
     * The holder is whoever a majority names now (each master keeps {@code <attempt token>:<its own fence>}).
     */
    @Override
    public void loseLock(LockStore holder, String key) {
        String owner = ownerOnMajority(key);
        for (RedisServer master : this.masters.all()) {
            master.command("EVAL", DELETE_IF_OWNED, "1", key, owner);
        }
    }

    private String ownerOnMajority(String key) {
        Map<String, Integer> owners = new HashMap<>();
        for (RedisServer master : this.masters.all()) {
            Object value = master.command("GET", key);
            if (value != null) {
                String text = value.toString();
                owners.merge(text.substring(0, text.lastIndexOf(':') + 1), 1, Integer::sum);
            }
        }
        int majority = this.masters.all().size() / 2 + 1;
        return owners.entrySet().stream().filter((owner) -> owner.getValue() >= majority).map(Map.Entry::getKey)
            .findFirst().orElseThrow(() -> new IllegalStateException("No majority of the masters holds " + key
                    + " to be lost: " + owners));
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
