package io.github.redislock.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockInspection;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/redislocks}: the locks this application holds now (key, fencing token, since when, lease,
 * when the lease last started), the keys its threads wait for and how many, and how lease renewal fares. A lock
 * whose work ended before its holdAtLeast had passed is listed as held until it expires in Redis, with no holds
 * and, as its thread, "{@value #KEPT_PREFIX}<i>time</i>)", its lease being the minimum counted from its
 * acquisition. It
 * reads the engine's own bookkeeping and sends nothing to Redis; there is deliberately no operation that
 * releases a lock (releasing someone's lock over HTTP would break the mutual exclusion it exists for). Keys are
 * built from request data, so, like Boot's {@code show-values}, they are shown only as
 * {@code management.endpoint.redislocks.show-keys} says ({@code never} by default).
 * <p>
 * {@code /actuator/redislocks/{key}} is the cluster-wide holder view: it asks the store now who holds the lock of
 * that name (the name as the application gives it; the key prefix is added), whichever application that is, and
 * answers with the holder instance as the store's instance registry names it (unknown when the registry does not
 * know the owner), the fencing token, the lease remaining and how many applications wait. It is a read of the
 * store per request, and as read-only as the rest. Like Boot's {@code /actuator/env/{name}} with values hidden,
 * it answers for a key the caller names even when keys are not shown to that caller, but echoes the key masked.
 */
@Endpoint(id = "redislocks")
public class RedisLocksEndpoint {

    /**
     * The {@code thread} of a lock kept in Redis after its work ended (holdAtLeast): no thread holds it, nobody
     * can enter it, and it expires at the time that follows.
     */
    public static final String KEPT_PREFIX = "(none: kept for holdAtLeast until ";

    /** What a key shows as when keys are not shown. */
    static final String MASKED = "******";

    private final LockEngine engine;

    private final Show showKeys;

    private final Set<String> roles;

    /** An endpoint that never shows keys (they are request data: user ids, order numbers). */
    public RedisLocksEndpoint(LockEngine engine) {
        this(engine, Show.NEVER, Set.of());
    }

    /**
     * The endpoint of the application's lock engine, whatever its store: the engine's snapshot for the list, its
     * store's holder view ({@link LockEngine#inspect}) for a key.
     * @param showKeys when keys are shown ({@code management.endpoint.redislocks.show-keys}); otherwise each
     * shows as {@value #MASKED}
     * @param roles the roles that may see keys with {@link Show#WHEN_AUTHORIZED} (empty: any authenticated user)
     */
    public RedisLocksEndpoint(LockEngine engine, Show showKeys, Set<String> roles) {
        this.engine = engine;
        this.showKeys = showKeys;
        this.roles = Set.copyOf(roles);
    }

    /** The endpoint's answer for a caller with no security context (keys shown only with {@link Show#ALWAYS}). */
    public RedisLocksDescriptor locks() {
        return locks(SecurityContext.NONE);
    }

    /** The endpoint's answer; keys are shown as {@code show-keys} says for this caller. */
    @ReadOperation
    public RedisLocksDescriptor locks(SecurityContext securityContext) {
        boolean show = this.showKeys.isShown(securityContext, this.roles);
        LockEngineState state = this.engine.state();
        List<HeldLockDescriptor> held = new ArrayList<>(state.held().size());
        for (LockEngineState.HeldKey key : state.held()) {
            held.add(new HeldLockDescriptor(show ? key.key() : MASKED, key.fencingToken(), key.heldSince(),
                    key.leaseTime(), key.renewed(), key.leaseStartedAt(), key.thread(), key.holds(),
                    key.sharing().mode().name(), key.sharing().permits()));
        }
        for (LockEngineState.KeptKey key : state.kept()) {
            // Held by this application in Redis, by no thread: its work ended before holdAtLeast had passed.
            held.add(new HeldLockDescriptor(show ? key.key() : MASKED, key.fencingToken(), key.heldSince(),
                    Duration.between(key.heldSince(), key.keptUntil()), false, key.heldSince(),
                    KEPT_PREFIX + key.keptUntil() + ")", 0, "WRITE", 1));
        }
        List<WaitingDescriptor> waiting = new ArrayList<>(state.waiting().size());
        for (Map.Entry<String, Integer> entry : state.waiting().entrySet()) {
            waiting.add(new WaitingDescriptor(show ? entry.getKey() : MASKED, entry.getValue()));
        }
        LockEngineState.Renewal renewal = state.renewal();
        return new RedisLocksDescriptor(held, waiting, new RenewalDescriptor(renewal.failing() ? "FAILING" : "OK",
                renewal.period(), renewal.lastSuccess(), renewal.lastFailure(), renewal.lastError(),
                renewal.failedRounds()));
    }

    /** {@link #lock(SecurityContext, String...)} for a caller with no security context. */
    public LockViewDescriptor lock(String name) {
        return lock(SecurityContext.NONE, name);
    }

    /**
     * Who holds the lock of this name now, in any application: read from the store on every call.
     * @param name the lock name as the application gives it, key prefix left out; its parts joined with
     * {@code /} (a name may contain slashes)
     * @throws InvalidEndpointRequestException (400) if the name makes a key the store refuses
     * @throws LockException if the store cannot be reached
     */
    @ReadOperation
    public LockViewDescriptor lock(SecurityContext securityContext,
            @Selector(match = Selector.Match.ALL_REMAINING) String... name) {
        String joined = String.join("/", name);
        LockInspection view;
        try {
            view = this.engine.inspect(joined);
        }
        catch (LockException ex) {
            if (ex.getCause() != null) {
                throw ex;
            }
            // Refused before anything was sent: the request's fault, not the store's.
            throw new InvalidEndpointRequestException(ex.getMessage(), "Not a lock name this application may use");
        }
        boolean show = this.showKeys.isShown(securityContext, this.roles);
        LockInspection.Holder holder = view.holder();
        HolderDescriptor holderDescriptor = (holder != null) ? describe(holder, view.since()) : null;
        List<HoldingDescriptor> holders = new ArrayList<>(view.holders().size());
        for (LockInspection.Holding holding : view.holders()) {
            holders.add(new HoldingDescriptor(describe(holding.holder(), null), holding.fencingToken(),
                    holding.leaseRemaining()));
        }
        return new LockViewDescriptor(show ? view.key() : MASKED, view.held(), view.state().name(), holderDescriptor,
                view.fencingToken(), view.leaseRemaining(), view.waiting(), view.sharing().mode().name(),
                view.sharing().permits(), holders);
    }

    private static HolderDescriptor describe(LockInspection.Holder holder, @Nullable Instant since) {
        return new HolderDescriptor(holder.known(), holder.application(), holder.instance(), holder.host(),
                holder.pid(), since);
    }

    /**
     * The endpoint's answer.
     * @param held the locks this application holds now, by key
     * @param waiting the keys this application's threads wait for
     * @param renewal how lease renewal fares
     */
    public record RedisLocksDescriptor(List<HeldLockDescriptor> held, List<WaitingDescriptor> waiting,
            RenewalDescriptor renewal) implements OperationResponseBody {
    }

    /**
     * One lock held.
     * @param key the Redis key, key prefix included
     * @param fencingToken the acquisition's fencing token
     * @param heldSince when it was taken
     * @param leaseTime its lease
     * @param renewed whether the lease is renewed while held (false: a fixed lease)
     * @param leaseStartedAt when the current lease began: the last successful renewal, or the acquisition
     * @param thread the thread that took it
     * @param holds nested (reentrant) acquisitions sharing it
     * @param mode {@code WRITE} (alone on the key) or {@code READ} (shared with readers)
     * @param permits 1, or the count of the semaphore whose permit this is (a shared key held by several threads
     * here is listed once per holder)
     */
    public record HeldLockDescriptor(String key, long fencingToken, Instant heldSince, Duration leaseTime,
            boolean renewed, Instant leaseStartedAt, String thread, int holds, String mode, int permits) {
    }

    /**
     * A key waited for.
     * @param key the Redis key, key prefix included
     * @param threads how many threads of this application wait for it
     */
    public record WaitingDescriptor(String key, int threads) {
    }

    /**
     * Lease renewal.
     * @param status {@code OK}, or {@code FAILING} when the last round failed (leases are then not extended)
     * @param period how often renewed locks are renewed
     * @param lastSuccess when a round last succeeded
     * @param lastFailure when a round last failed
     * @param lastError what the last failed round reported
     * @param failedRounds rounds failed since the application started
     */
    public record RenewalDescriptor(String status, Duration period, @Nullable Instant lastSuccess,
            @Nullable Instant lastFailure, @Nullable String lastError, long failedRounds) {
    }

    /**
     * Who holds one key now, anywhere: the holder view's answer.
     * @param key the store's key, key prefix included (masked unless shown)
     * @param held whether anyone holds it (an attempt to take it now would not succeed at once)
     * @param state {@code FREE}, {@code HELD}, {@code HANDED_OFF} (a release handed it to a waiting application,
     * which has not yet taken it over), {@code KEPT} (owned by nobody until its holder's holdAtLeast has passed)
     * or {@code OTHER} (a value this library did not write; on Redlock also no majority)
     * @param holder the instance that holds it ({@code HELD}, {@code HANDED_OFF}), else {@code null}
     * @param fencingToken the fencing token the store keeps with it
     * @param leaseRemaining how long until it frees itself unless renewed
     * @param waiting how many applications queue for it ({@code null}: the store keeps no queue)
     * @param mode {@code WRITE} or {@code READ}: how the key is in use (a free key: {@code WRITE})
     * @param permits 1, or the count of a semaphore
     * @param holders every holder: one for a write lock, each reader or permit holder for a shared key (whose
     * {@code holder}, {@code fencingToken} and {@code leaseRemaining} above are then those of the latest holder)
     */
    public record LockViewDescriptor(String key, boolean held, String state, @Nullable HolderDescriptor holder,
            @Nullable Long fencingToken, @Nullable Duration leaseRemaining, @Nullable Integer waiting, String mode,
            int permits, List<HoldingDescriptor> holders) implements OperationResponseBody {
    }

    /**
     * One holder of a key.
     * @param holder the instance, as the store's instance registry names it
     * @param fencingToken its fencing token
     * @param leaseRemaining how long until its lease runs out unless renewed
     */
    public record HoldingDescriptor(HolderDescriptor holder, @Nullable Long fencingToken,
            @Nullable Duration leaseRemaining) {
    }

    /**
     * The instance that holds a key, as the store's instance registry names it.
     * @param known false when the registry does not know the owner (a crashed instance whose entry expired,
     * another library version, a value another client wrote); the fields below but {@code since} are then
     * {@code null}
     * @param application its {@code spring.application.name}
     * @param instance the id its process drew at start-up
     * @param host its host name
     * @param pid its process id
     * @param since when it took the key, as the store's clock tells
     */
    public record HolderDescriptor(boolean known, @Nullable String application, @Nullable String instance,
            @Nullable String host, @Nullable Long pid, @Nullable Instant since) {
    }
}
