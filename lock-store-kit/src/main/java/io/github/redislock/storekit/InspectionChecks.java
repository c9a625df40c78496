package io.github.redislock.storekit;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The holder view: every application asking the store about a key learns the same holder. */
public interface InspectionChecks extends StoreChecks {

    /**
     * Two applications have named themselves in the store's registry ({@link StoreFixture#publishInstance}); one
     * holds a key. Asked from either, the store says the key is held, by that instance, with the holder's fencing
     * token; and free once it is released.
     */
    @Test
    default void everyApplicationLearnsWhoHoldsAKey() {
        StoreFixture fixture = applications().fixture();
        Application holder = start(STEADY_LEASE);
        Application other = start(STEADY_LEASE);
        InstanceInfo self = new InstanceInfo("orders", "orders-1", "host-1", 4242);
        boolean named = fixture.publishInstance(holder.store(), self, holder.engine().ownerId());
        fixture.publishInstance(other.store(), new InstanceInfo("billing", "billing-1", "host-2", 4343),
                other.engine().ownerId());
        try (LockHandle held = holder.acquire("inspected", NO_WAIT)) {
            // A registry entry may be written by the store's own thread: it is read until it is there.
            await().untilAsserted(() -> {
                for (Application application : List.of(holder, other)) {
                    LockInspection seen = application.inspect("inspected");
                    assertThat(seen.key()).isEqualTo(held.key());
                    assertThat(seen.state()).isEqualTo(LockInspection.State.HELD);
                    assertThat(seen.fencingToken()).isEqualTo(held.fencingToken());
                    assertThat(seen.holder()).isEqualTo(named ? LockInspection.Holder.of(self) : LockInspection.Holder.UNKNOWN);
                }
            });
        }
        awaitNothingLeft("inspected");
    }
}
