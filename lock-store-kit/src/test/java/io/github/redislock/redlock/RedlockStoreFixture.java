package io.github.redislock.redlock;

import java.time.Duration;
import java.util.List;

import io.github.redislock.engine.LockStore;
import io.github.redislock.storekit.RedisNodes;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.RedlockMasters;

/**
 * Redlock under the kit: each application a {@link RedlockStore} on Lettuce factories of its own, one per master.
 * A lock is lost by deleting its key on every master (a renewal then finds no majority holding it); residue is
 * any key beginning with the lock key on any master, but the fencing counter, which outlives locks by design.
 */
final class RedlockStoreFixture implements StoreFixture {

    private final RedlockMasters masters;

    RedlockStoreFixture(RedlockMasters masters) {
        this.masters = masters;
    }

    @Override
    public LockStore newStore() {
        return new RedlockStore(this.masters.connect(Duration.ofSeconds(5)), "kit:");
    }

    @Override
    public void loseLock(LockStore holder, String key) {
        this.masters.all().forEach((master) -> master.command("DEL", key));
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
