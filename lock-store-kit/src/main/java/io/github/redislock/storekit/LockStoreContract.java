package io.github.redislock.storekit;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

/**
 * The store conformance kit: every promise the documentation makes of a lock store, checked through
 * {@link io.github.redislock.engine.LockEngine}s (one per application, each over a store of its own on one shared
 * backend), and judged by what the check keeps itself (a {@link Witness} of critical sections, the losses the
 * engines told, the clock) and by what the backend keeps ({@link StoreFixture#residue}), never by the store's own
 * word alone. Extend it in a store's tests and give it the store's {@link StoreFixture}:
 *
 * <pre>{@code
 * class MyStoreContractTest extends LockStoreContract {
 *
 *     @RegisterExtension
 *     static final MyServerExtension server = new MyServerExtension();
 *
 *     @Override
 *     protected StoreFixture fixture() {
 *         return new MyStoreFixture(server);
 *     }
 * }
 * }</pre>
 *
 * The checks, one group per interface: {@link ExclusionChecks} (mutual exclusion across applications and threads,
 * fencing tokens in entry order), {@link MultiKeyChecks} (all or nothing, either order, no deadlock),
 * {@link NothingLeftChecks} (timeouts and interrupts leave nothing), {@link HoldAtLeastChecks},
 * {@link ReentrancyChecks}, {@link LeaseChecks} (renewal across leases, fixed leases), {@link LossChecks} (losses
 * told within the documented bound; a release of a lock no longer ours deletes nothing) and
 * {@link InspectionChecks} (the holder view across applications), {@link PermitChecks} (semaphores: at most N
 * holders, all N reachable, a crashed holder's permits back within one lease, another count refused),
 * {@link ReadWriteChecks} (readers together, a writer alone, no writer starved, upgrade refused, downgrade entered),
 * {@link ExtendChecks} (a holder's extension outlives the first lease, fixes a renewed one, says when the lock is
 * lost) and {@link LeaderChecks} (leader election over the store: never two leaders at once, judged by a
 * {@link LeaderWitness}; terms that grow; hand-over on yield and stop; a lost leadership told). A check that depends
 * on time judges by what it
 * measured (see {@link Pauses}), so a loaded machine does not fail it by chance.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
public abstract class LockStoreContract implements ExclusionChecks, MultiKeyChecks, NothingLeftChecks,
        HoldAtLeastChecks, ReentrancyChecks, LeaseChecks, LossChecks, InspectionChecks, PermitChecks, ReadWriteChecks,
        ExtendChecks, LeaderChecks {

    private Applications applications;

    /**
     * A new fixture for one check, over the backend the test class keeps (a server started once per class, for
     * example); the kit closes it after the check, once every store over it is closed.
     */
    protected abstract StoreFixture fixture();

    @BeforeEach
    void startApplications() {
        this.applications = new Applications(fixture());
    }

    @AfterEach
    void closeApplications() {
        this.applications.close();
    }

    @Override
    public final Applications applications() {
        return this.applications;
    }
}
