package io.github.redislock.benchmarks;

/**
 * The names under which each lock implementation appears in the result table. One place for them, because
 * the table finds a figure's peers by these names.
 */
public final class Implementations {

    /** {@code @DistributedLock(key = "bench:#id", leaseTime = "30s")}: fixed lease. */
    public static final String OURS_ANNOTATED = "ours-annotated";

    /** {@code ours-annotated} on a Kotlin {@code suspend fun}, called through {@code runBlocking}. */
    public static final String OURS_SUSPEND = "ours-suspend";

    /** {@code @DistributedLock(key = "bench:#id")}: renewed lease. */
    public static final String OURS_ANNOTATED_RENEWED = "ours-annotated-renewed";

    /** {@code DistributedLockTemplate.execute(key, wait, 30 s, supplier)}: fixed lease. */
    public static final String OURS_TEMPLATE = "ours-template";

    /** {@code DistributedLockTemplate.execute(key, wait, null, supplier)}: renewed lease. */
    public static final String OURS_TEMPLATE_RENEWED = "ours-template-renewed";

    /** {@code ours-template} with {@code redis-lock.local-handover-rejoin=true}: turns up to the hand-over limits. */
    public static final String OURS_TEMPLATE_REJOIN = "ours-template-rejoin";

    /** The template with a renewed lease, on Redlock over five local masters. */
    public static final String OURS_REDLOCK = "ours-redlock-5";

    /** The template with a renewed lease, each acquisition acknowledged by one replica (WAIT 1). */
    public static final String OURS_REPLICA_ACK = "ours-replica-ack-1";

    /** The template (renewed-lease form: ZooKeeper renews nothing) on the ZooKeeper store ({@code lock-zookeeper}). */
    public static final String OURS_ZOOKEEPER = "ours-zookeeper";

    public static final String LETTUCE_RAW = "lettuce-raw";

    /** Raw Lettuce with the take a script that stores the server's clock as a fencing token: fencing's floor. */
    public static final String LETTUCE_RAW_FENCED = "lettuce-raw-fenced";

    /** Raw Lettuce's two commands on each of the five masters of {@link #OURS_REDLOCK}: a Redlock's floor. */
    public static final String LETTUCE_RAW_REDLOCK = "lettuce-raw-redlock-5";

    public static final String NAIVE_TEMPLATE = "naive-template";

    public static final String REDISSON = "redisson";

    public static final String REDISSON_WATCHDOG = "redisson-watchdog";

    /** Redisson's {@code RedissonMultiLock} over the five masters of {@link #OURS_REDLOCK}, watchdog lease. */
    public static final String REDISSON_MULTI_LOCK = "redisson-multilock-5";

    /** Redisson's {@code RedissonRedLock} over the five masters of {@link #OURS_REDLOCK}, watchdog lease. */
    public static final String REDISSON_RED_LOCK = "redisson-redlock-5";

    public static final String SI_SPIN = "si-spin";

    public static final String SI_PUBSUB = "si-pubsub";

    /** Curator's {@code InterProcessMutex}, used directly: {@code acquire(wait)} + {@code release()}. */
    public static final String CURATOR_MUTEX = "curator-mutex";

    /** Spring Integration's {@code ZookeeperLockRegistry}: {@code obtain(key).tryLock(wait)} + {@code unlock()}. */
    public static final String SI_ZOOKEEPER = "si-zookeeper";

    /** The template with {@code permits(4)} (or {@code mode(READ)} for reads), fixed 30 s lease, on Redis. */
    public static final String OURS_SHARED = "ours-shared";

    /** The same on the ZooKeeper store (renewed-lease form: ZooKeeper renews nothing). */
    public static final String OURS_ZOOKEEPER_SHARED = "ours-zookeeper-shared";

    /** Redisson's {@code RPermitExpirableSemaphore}: {@code tryAcquire(wait, 30 s)} + {@code release(id)}. */
    public static final String REDISSON_PERMIT_SEMAPHORE = "redisson-permit-semaphore";

    /** Redisson's {@code RReadWriteLock}: read or write lock, {@code tryLock(wait, 30 s)} + {@code unlock()}. */
    public static final String REDISSON_READ_WRITE = "redisson-rwlock";

    /** Curator's {@code InterProcessSemaphoreV2}: {@code acquire(wait)} + {@code returnLease}. */
    public static final String CURATOR_SEMAPHORE = "curator-semaphore";

    /** Curator's {@code InterProcessReadWriteLock}: read or write lock, {@code acquire(wait)} + {@code release()}. */
    public static final String CURATOR_READ_WRITE = "curator-rwlock";

    private Implementations() {
    }
}
