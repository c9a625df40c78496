package io.github.redislock.engine;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import io.github.redislock.testsupport.RedisSentinelExtension;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locks on a Sentinel-managed Redis (a master, two replicas, three Sentinels), configured with Boot's own
 * {@code spring.data.redis.sentinel.*} properties, on Lettuce and on Jedis: taking, waiting, hand-off, renewal
 * and release before and across a {@code SENTINEL FAILOVER}. A lock held through the failover (replicated
 * before it) is still held on the new master: nobody else gets it, its holder renews and releases it there.
 * The one topology is shared by the class and healed after each test.
 */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
class SentinelLockTest {

    private static final String KEY = "sentinel:lock";

    @Parameter
    ClientLibrary library;

    @RegisterExtension
    static final RedisSentinelExtension sentinel = RedisSentinelExtension.healedAfterEach(2);

    @RegisterExtension
    final LockApplications applications = new LockApplications();

    private LockApplication first;

    private LockApplication second;

    private void startApplications() {
        this.first = this.applications.start(sentinel.topology(), this.library);
        this.second = this.applications.start(sentinel.topology(), this.library);
    }

    @Test
    void locksAndHandsOffOnTheMasterSentinelNames() throws Exception {
        startApplications();
        LockHandle held = this.first.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
        assertThat(sentinel.topology().master().command("GET", LockApplication.PREFIX + KEY)).isEqualTo(held.token());
        AtomicBoolean released = new AtomicBoolean();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> this.second.template()
            .execute(KEY, Duration.ofSeconds(30), null, released::get), TaskThreads.own());
        await().pollDelay(Duration.ofMillis(200)).until(() -> !waiter.isDone());
        released.set(true);
        held.close();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aLockHeldThroughAFailoverIsStillHeldOnTheNewMaster() {
        startApplications();
        LockHandle held = this.first.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
        sentinel.topology().awaitReplicated();
        RedisServer promoted = sentinel.topology().failover();
        String key = LockApplication.PREFIX + KEY;
        assertThat(promoted.command("GET", key)).isEqualTo(held.token());

        // The second application, once reconnected to the new master, finds the lock taken.
        Optional<LockHandle> intruder = await().ignoreExceptions()
            .until(() -> this.second.template().tryAcquire(KEY, Duration.ZERO, null), (answer) -> true);
        assertThat(intruder).isEmpty();

        // The holder renews it there...
        promoted.command("PEXPIRE", key, "5000");
        await().ignoreExceptions().untilAsserted(() -> {
            this.first.client().renewNow();
            assertThat((Long) promoted.command("PTTL", key)).isGreaterThan(10_000L);
        });
        assertThat(held.verifyHeld()).isTrue();
        // ...and releases it there, after which the second application gets it.
        held.close();
        assertThat(promoted.command("EXISTS", key)).isEqualTo(0L);
        assertThat(this.second.template().tryAcquire(KEY, Duration.ZERO, null)).isPresent();
        assertThat(this.first.lostEvents()).isEmpty();
    }

    @Test
    void aWaiterGetsTheLockWhenItsHolderReleasesItAfterAFailover() throws Exception {
        startApplications();
        LockHandle held = this.first.template().tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
        AtomicBoolean released = new AtomicBoolean();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> this.second.template()
            .execute(KEY, Duration.ofSeconds(60), null, released::get), TaskThreads.own());
        sentinel.topology().awaitReplicated();
        sentinel.topology().failover();
        // The holder's connection has followed the failover when it can check its lock on the new master.
        await().ignoreExceptions().until(held::verifyHeld);
        assertThat(waiter).isNotDone();
        released.set(true);
        held.close();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(this.first.lostEvents()).isEmpty();
    }
}
