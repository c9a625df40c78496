package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.support.LockContexts;
import io.github.redislock.support.OverlapLog;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock on each client library Spring Boot can connect with ({@code spring.data.redis.client-type}): the
 * engine on a factory built as Boot builds it, and a whole application context. Hand-offs and renewal are
 * covered on both libraries by {@link NotifiedWaitingTest} and {@link LeaseRenewalTest}.
 */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang fails the test
class ClientLibraryLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Parameter
    ClientLibrary library;

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<RedisLockClient> clients = new ArrayList<>();

    /** Closing must not hang either (it did while a Jedis subscription held the waiter's thread). */
    @AfterEach
    void closeClients() throws Exception {
        CompletableFuture.runAsync(() -> {
            this.clients.forEach(RedisLockClient::close);
            this.factories.forEach(TestConnections::destroy);
        }, (task) -> daemon(task).start()).get(10, TimeUnit.SECONDS);
    }

    /** One application's lock engine, on a connection factory of its own. */
    private RedisLockClient client() {
        RedisConnectionFactory factory = this.library.connect(redis.server(), Duration.ofSeconds(5));
        this.factories.add(factory);
        RedisLockClient client = new RedisLockClient(factory, "", Duration.ofSeconds(30), LockLossListener.NONE, null);
        this.clients.add(client);
        return client;
    }

    @Test
    void releaseDeletesTheKey() {
        RedisLockClient client = client();
        LockHandle handle = acquire(client, List.of("sku:1"), 0, 30_000);
        assertThat(redis.command("GET", "sku:1")).isEqualTo(handle.token());
        handle.close();
        assertThat(redis.command("EXISTS", "sku:1")).isEqualTo(0L);
    }

    /** The reported bug: on Jedis the first thread that had to wait subscribed on its own thread and never came back. */
    @Test
    void aWaiterComesBackWhenItsWaitRunsOut() throws Exception {
        RedisLockClient holderClient = client();
        RedisLockClient waiterClient = client();
        LockHandle holder = acquire(holderClient, List.of("busy"), 0, 30_000);
        CompletableFuture<LockHandle> waited = CompletableFuture.supplyAsync(
                () -> acquire(waiterClient, List.of("busy"), TimeUnit.MILLISECONDS.toNanos(300), 30_000),
                (task) -> daemon(task).start());
        assertThat(waited.get(10, TimeUnit.SECONDS)).as("not acquired: the key stayed taken").isNull();
        holder.close();
    }

    @Test
    void aWaiterOfAnotherApplicationTakesTheLockOnceReleased() throws Exception {
        RedisLockClient holderClient = client();
        RedisLockClient waiterClient = client();
        LockHandle holder = acquire(holderClient, List.of("busy"), 0, 30_000);
        CompletableFuture<LockHandle> waited = new CompletableFuture<>();
        Thread waiter = daemon(() -> waited.complete(
                acquire(waiterClient, List.of("busy"), TimeUnit.SECONDS.toNanos(20), 30_000)));
        waiter.start();
        NotifiedWaitingTest.awaitParkedForNotification(waiter);
        holder.close();
        LockHandle handle = waited.get(10, TimeUnit.SECONDS);
        assertThat(redis.command("GET", "busy")).isEqualTo(handle.token());
        handle.close();
        assertThat(redis.command("EXISTS", "busy")).isEqualTo(0L);
    }

    @Test
    void severalThreadsOfTwoApplicationsNeverOverlap() throws Exception {
        List<RedisLockClient> applications = List.of(client(), client());
        OverlapLog log = new OverlapLog();
        int threadsPerApplication = 4;
        int sectionsPerThread = 25;
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (RedisLockClient application : applications) {
            for (int i = 0; i < threadsPerApplication; i++) {
                workers.add(CompletableFuture.runAsync(() -> {
                    awaitQuietly(start);
                    for (int section = 0; section < sectionsPerThread; section++) {
                        LockHandle handle = acquire(application, List.of("hot"), TimeUnit.SECONDS.toNanos(30), 30_000);
                        assertThat(handle).as("acquired within 30 s").isNotNull();
                        long entered = log.enter();
                        Thread.onSpinWait();
                        log.exit(entered);
                        handle.close();
                    }
                }, (task) -> daemon(task).start()));
            }
        }
        start.countDown();
        CompletableFuture.allOf(workers.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        assertThat(log.sections()).isEqualTo(applications.size() * threadsPerApplication * sectionsPerThread);
        assertThat(log.maxConcurrent()).isEqualTo(1);
        assertThat(log.overlappingPairs()).isZero();
        assertThat(redis.command("EXISTS", "hot")).isEqualTo(0L);
    }

    @Test
    void anApplicationContextOnThisClientLibraryWaitsForALockAndGetsIt() {
        LockContexts.runner(redis).withPropertyValues("spring.data.redis.client-type=" + this.library.clientType())
                .run((holderContext) -> LockContexts.runner(redis)
                        .withPropertyValues("spring.data.redis.client-type=" + this.library.clientType())
                        .run((waiterContext) -> {
                            assertThat(waiterContext.getBean(RedisConnectionFactory.class)).isInstanceOf(
                                    (this.library == ClientLibrary.JEDIS) ? JedisConnectionFactory.class
                                            : LettuceConnectionFactory.class);
                            DistributedLockTemplate holder = holderContext.getBean(DistributedLockTemplate.class);
                            DistributedLockTemplate waiter = waiterContext.getBean(DistributedLockTemplate.class);
                            LockHandle held = holder.tryAcquire("order:7", Duration.ZERO, null).orElseThrow();
                            CompletableFuture<String> waited = CompletableFuture.supplyAsync(
                                    () -> waiter.execute("order:7", Duration.ofSeconds(20), null,
                                            () -> (String) redis.command("GET", "order:7")),
                                    (task) -> daemon(task).start());
                            // Queued in Redis: the waiting application has tried once and waits.
                            await().atMost(Duration.ofSeconds(10)).until(
                                    () -> redis.command("LLEN", KeySlots.queueKey("order:7")).equals(1L));
                            assertThat(waited).isNotDone();
                            held.close();
                            assertThat(waited.get(10, TimeUnit.SECONDS)).as("the waiter's own token")
                                    .isNotNull().isNotEqualTo(held.token());
                            assertThat(redis.command("EXISTS", "order:7")).isEqualTo(0L);
                        }));
    }

    private static Thread daemon(Runnable task) {
        Thread thread = new Thread(task);
        thread.setDaemon(true);
        return thread;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
