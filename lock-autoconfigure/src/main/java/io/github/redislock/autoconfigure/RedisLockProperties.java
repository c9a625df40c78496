package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.LockRequest;
import io.github.redislock.OnLeaseLost;
import io.github.redislock.redis.RedisLockStore;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of redis-lock, under {@code redis-lock.*}. The Redis connection itself is Spring Boot's
 * ({@code spring.data.redis.*}); its command timeout ({@code spring.data.redis.timeout}) bounds how long a
 * lock operation may block on an unresponsive Redis.
 * <p>
 * Implements {@link Validator} so that Spring Boot rejects bad values while binding, naming the property.
 */
@ConfigurationProperties("redis-lock")
public class RedisLockProperties implements Validator {

    /** Default order of the lock advice: just outside {@code @Transactional} and other default-ordered advice. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    /** Whether to enable @DistributedLock and the DistributedLockTemplate. */
    private boolean enabled = true;

    /**
     * Name of the RedisConnectionFactory bean to lock on, for applications that have several and none of them
     * is @Primary. Empty: the primary or only one.
     */
    private String connectionFactory = "";

    /**
     * Text put in front of every lock key in Redis, and so of its companion keys and of the hand-off channels,
     * e.g. "myapp:": an ACL can then confine the application to "~myapp:*" and "&myapp:*". It may not contain
     * "~lock~", and braces only as one whole hash tag.
     */
    private String keyPrefix = "";

    /** How long to wait for a lock when @DistributedLock or the template does not say; 0 means one attempt. */
    private Duration waitTime = Duration.ZERO;

    /**
     * Lease of locks that do not set a fixed one: the key's TTL, renewed every third of it while the lock is
     * held. A crashed holder's lock frees itself within this time.
     */
    private Duration leaseTime = Duration.ofSeconds(30);

    /** What an annotated call does when its lock was lost while the method ran: warn (log and event) or throw. */
    private OnLeaseLost onLeaseLost = OnLeaseLost.WARN;

    /**
     * Whether a transaction that began under a lock checks in Redis, just before it commits, that the lock is
     * still held, and rolls back if it is not.
     */
    private boolean verifyBeforeCommit = true;

    /**
     * How many times in a row a lock may pass straight from one thread of this application to the next thread
     * here waiting for it, with no Redis round trip, before a release goes through Redis and the next waiting
     * application gets its turn. 0 sends every release through Redis. Each holder still gets its own, larger
     * fencing token.
     */
    private int localHandoverLimit = RedisLockStore.DEFAULT_LOCAL_HANDOVER_LIMIT;

    /**
     * How long this application may keep a lock among its own threads by local hand-overs, counted from when
     * it took the key in Redis: other applications waiting for the key wait at most about this much longer.
     */
    private Duration localHandoverTimeLimit = RedisLockStore.DEFAULT_LOCAL_HANDOVER_TIME_LIMIT;

    /**
     * Whether a thread of this application that asks for a lock again during its application's turn may be passed
     * it again in that turn (within local-handover-limit and local-handover-time-limit), rather than waiting for the
     * application's next turn. Several times the throughput on a hot key with several threads per application; the
     * price is uneven waits: other applications wait for whole turns rather than one acquisition per waiting thread.
     */
    private boolean localHandoverRejoin;

    /**
     * How much faster the Redis server's clock may run than this application's, as a share of the lease (0.01 is
     * 1 %): a lock counts as held by this application's clock for the lease less this share and 2 ms, so that a
     * holder cut off from Redis stops saying it holds the lock before Redis can give it to another. Single Redis only
     * (Redlock allows 1 % by its algorithm).
     */
    private double clockDrift = 0.01;

    /**
     * Order of the lock advice among other advice on the same method (lower runs first, outside). The default
     * takes the lock before a @Transactional transaction begins and releases it after the transaction ends.
     */
    private int order = DEFAULT_ORDER;

    /**
     * Replicas that must confirm (Redis WAIT) every acquisition before the locked code runs; an acquisition
     * they do not confirm within the replication timeout is released and fails. 0: plain asynchronous
     * replication, where a failover can lose a lock just taken. Standalone and Sentinel connections only.
     */
    private int replicasToAcknowledge = 0;

    /** How long an acquisition waits for its replicas to acknowledge it, when replicas are asked for. */
    private Duration replicationTimeout = Duration.ofMillis(500);

    /**
     * The most keys one @DistributedLock call may lock, all its key templates and collection elements
     * together. A call whose keys would be more fails before any key is built or taken: collection-valued
     * parts come from requests, and each key costs a round trip and a renewal.
     */
    private int maxKeysPerCall = 100;

    /**
     * How long this instance's entry in the instance registry (under "<key-prefix>~lock~instance:") outlives it:
     * written at start-up, refreshed every third of it, deleted at shutdown. The holder view
     * (/actuator/redislocks/{key}) names the application holding a key through it; a crashed instance's entry
     * expires within this time.
     */
    private Duration instanceTtl = Duration.ofSeconds(30);

    private final Redlock redlock = new Redlock();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getConnectionFactory() {
        return this.connectionFactory;
    }

    public void setConnectionFactory(String connectionFactory) {
        this.connectionFactory = (connectionFactory != null) ? connectionFactory.trim() : "";
    }

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = (keyPrefix != null) ? keyPrefix : "";
    }

    public Duration getWaitTime() {
        return this.waitTime;
    }

    public void setWaitTime(Duration waitTime) {
        this.waitTime = waitTime;
    }

    public Duration getLeaseTime() {
        return this.leaseTime;
    }

    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    public OnLeaseLost getOnLeaseLost() {
        return this.onLeaseLost;
    }

    public void setOnLeaseLost(OnLeaseLost onLeaseLost) {
        this.onLeaseLost = onLeaseLost;
    }

    public boolean isVerifyBeforeCommit() {
        return this.verifyBeforeCommit;
    }

    public void setVerifyBeforeCommit(boolean verifyBeforeCommit) {
        this.verifyBeforeCommit = verifyBeforeCommit;
    }

    public int getOrder() {
        return this.order;
    }

    public void setOrder(int order) {
        this.order = order;
    }

    public int getLocalHandoverLimit() {
        return this.localHandoverLimit;
    }

    public void setLocalHandoverLimit(int localHandoverLimit) {
        this.localHandoverLimit = localHandoverLimit;
    }

    public double getClockDrift() {
        return this.clockDrift;
    }

    public void setClockDrift(double clockDrift) {
        this.clockDrift = clockDrift;
    }

    public boolean isLocalHandoverRejoin() {
        return this.localHandoverRejoin;
    }

    public void setLocalHandoverRejoin(boolean localHandoverRejoin) {
        this.localHandoverRejoin = localHandoverRejoin;
    }

    public Duration getLocalHandoverTimeLimit() {
        return this.localHandoverTimeLimit;
    }

    public void setLocalHandoverTimeLimit(Duration localHandoverTimeLimit) {
        this.localHandoverTimeLimit = localHandoverTimeLimit;
    }

    public int getReplicasToAcknowledge() {
        return this.replicasToAcknowledge;
    }

    public void setReplicasToAcknowledge(int replicasToAcknowledge) {
        this.replicasToAcknowledge = replicasToAcknowledge;
    }

    public Duration getReplicationTimeout() {
        return this.replicationTimeout;
    }

    public void setReplicationTimeout(Duration replicationTimeout) {
        this.replicationTimeout = replicationTimeout;
    }

    public int getMaxKeysPerCall() {
        return this.maxKeysPerCall;
    }

    public void setMaxKeysPerCall(int maxKeysPerCall) {
        this.maxKeysPerCall = maxKeysPerCall;
    }

    public Duration getInstanceTtl() {
        return this.instanceTtl;
    }

    public void setInstanceTtl(Duration instanceTtl) {
        this.instanceTtl = instanceTtl;
    }

    public Redlock getRedlock() {
        return this.redlock;
    }

    @Override
    public boolean supports(Class<?> type) {
        return RedisLockProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        RedisLockProperties properties = (RedisLockProperties) target;
        if (properties.getWaitTime() == null || properties.getWaitTime().isNegative()) {
            errors.rejectValue("waitTime", "negative", "must be zero or positive, e.g. 0s or 500ms");
        }
        if (properties.getLeaseTime() == null || properties.getLeaseTime().toMillis() < 1) {
            errors.rejectValue("leaseTime", "notPositive", "must be at least 1ms, e.g. 30s");
        }
        else if (properties.getLeaseTime().compareTo(LockRequest.MAX_LEASE) > 0) {
            errors.rejectValue("leaseTime", "tooLong", "must be at most 30 days (a release hands a lock on only "
                    + "for a lease up to that)");
        }
        if (properties.getOnLeaseLost() == null) {
            errors.rejectValue("onLeaseLost", "missing", "must be warn or throw");
        }
        if (properties.getLocalHandoverLimit() < 0) {
            errors.rejectValue("localHandoverLimit", "negative", "must be zero or positive, e.g. 16 (0: never)");
        }
        if (properties.getLocalHandoverTimeLimit() == null || properties.getLocalHandoverTimeLimit().isNegative()) {
            errors.rejectValue("localHandoverTimeLimit", "negative", "must be zero or positive, e.g. 50ms");
        }
        if (!(properties.getClockDrift() >= 0 && properties.getClockDrift() < 0.5)) {
            errors.rejectValue("clockDrift", "outOfRange", "must be at least 0 and below 0.5, a share of the lease, "
                    + "e.g. 0.01 (1 %)");
        }
        if (properties.getReplicasToAcknowledge() < 0) {
            errors.rejectValue("replicasToAcknowledge", "negative", "must be 0 (none) or a number of replicas");
        }
        if (properties.getReplicationTimeout() == null || properties.getReplicationTimeout().toMillis() < 1) {
            errors.rejectValue("replicationTimeout", "notPositive", "must be at least 1ms, e.g. 500ms");
        }
        if (properties.getMaxKeysPerCall() < 1) {
            errors.rejectValue("maxKeysPerCall", "notPositive", "must be at least 1, e.g. 100");
        }
        if (properties.getInstanceTtl() == null || properties.getInstanceTtl().toMillis() < 3) {
            errors.rejectValue("instanceTtl", "tooShort", "must be at least 3ms, e.g. 30s");
        }
        if (properties.getKeyPrefix().contains("~lock~")) {
            errors.rejectValue("keyPrefix", "reserved", "must not contain '~lock~', which marks the library's own "
                    + "keys and channels");
        }
        if (properties.getKeyPrefix().length() > 256) {
            errors.rejectValue("keyPrefix", "tooLong", "must be at most 256 characters");
        }
    }

    /** Redlock across independent Redis masters, instead of the one Redis of spring.data.redis. */
    public static class Redlock {

        /**
         * URLs of at least 3 independent Redis masters (redis://[user:password@]host:port[/database]), e.g.
         * redis://10.0.0.1:6379. Set: locks are taken on a majority of them, with the client settings of
         * spring.data.redis (client type, timeouts, SSL, pool). Empty: locks use the one Redis of
         * spring.data.redis.
         */
        private List<String> nodes = new ArrayList<>();

        public List<String> getNodes() {
            return this.nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = (nodes != null) ? nodes : new ArrayList<>();
        }
    }
}
