package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.redislock.redis.NotifiedWaitingTest.awaitParkedForNotification;
import static io.github.redislock.redis.NotifiedWaitingTest.waiterThread;
import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisLockStore#setLocalHandoverRejoin}: whether a thread that comes back for a hot key during its
 * application's turn is passed the lock again in that turn, or waits behind the other queued applications. Told
 * apart by who holds the key in Redis (the value the application took it under, or another application's) and who
 * got the lock, never by the library's own account. On Lettuce and on Jedis.
 */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
class LocalHandoverRejoinTest {

    @Parameter
    ClientLibrary library;

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.perTest();

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<TestRedisClient> clients = new ArrayList<>();

    private final List<LockHandle> handles = new ArrayList<>();

    @AfterEach
    void stop() {
        synchronized (this.handles) {
            this.handles.forEach(LockHandle::close);
        }
        this.clients.forEach(TestRedisClient::close);
        this.factories.forEach(TestConnections::destroy);
    }

    @Test
    void withoutRejoinAThreadThatJoinedDuringTheTurnWaitsForTheOtherQueuedApplication() throws Exception {
        Turn turn = turnWithALateThread(false);
        assertThat(turn.other.get(10, TimeUnit.SECONDS)).isPositive();
        LockHandle others = lastHandle();
        assertThat(redis.command("GET", "hot")).as("the other application holds the key in Redis")
            .isEqualTo(others.token());
        assertThat(turn.late.isDone()).as("the late thread waits for its application's next turn").isFalse();
        assertThat(others.fencingToken()).isGreaterThan(turn.early.fencingToken());
    }

    @Test
    void withRejoinAThreadThatJoinedDuringTheTurnIsPassedTheLockBeforeTheOtherQueuedApplication() throws Exception {
        Turn turn = turnWithALateThread(true);
        assertThat(turn.late.get(10, TimeUnit.SECONDS)).isPositive();
        LockHandle late = lastHandle();
        assertThat(redis.command("GET", "hot")).as("still the value the application took the key under")
            .isEqualTo(turn.early.token()).isEqualTo(late.token());
        assertThat(late.fencingToken()).isEqualTo(turn.early.fencingToken() + 1);
        assertThat(turn.other.isDone()).as("the other application still waits").isFalse();
        late.close();
        assertThat(turn.other.get(10, TimeUnit.SECONDS)).as("its turn comes once nobody waits here").isPositive();
        assertThat(lastHandle().fencingToken()).isGreaterThan(late.fencingToken());
    }

    @Test
    void thePropertyTurnsRejoinOnInTheAutoConfiguredStore() {
        LockContexts.runner(redis)
            .withPropertyValues("spring.data.redis.client-type=" + this.library.clientType(),
                    "redis-lock.local-handover-rejoin=true", "redis-lock.local-handover-time-limit=1m")
            .run((context) -> {
                Turn turn = turnWithALateThread(context.getBean(LockEngine.class));
                assertThat(turn.late.get(10, TimeUnit.SECONDS)).isPositive();
                assertThat(redis.command("GET", "hot")).isEqualTo(turn.early.token());
                assertThat(turn.other.isDone()).as("the other application still waits").isFalse();
                // Released while the application's engine still runs.
                lastHandle().close();
                turn.other.get(10, TimeUnit.SECONDS);
                lastHandle().close();
            });
    }

    /**
     * Application A is queued for a key an outside holder has, then application B. The holder's release hands the
     * key to A, whose waiting thread takes it over; a second thread of A then asks for it (it joins during A's
     * turn), and the first releases.
     */
    private Turn turnWithALateThread(boolean rejoin) throws Exception {
        TestRedisClient application = client();
        application.store().setLocalHandoverRejoin(rejoin);
        return turnWithALateThread(application);
    }

    private Turn turnWithALateThread(LockEngine application) throws Exception {
        TestRedisClient other = client();
        LockHandle outside = acquire(client(), List.of("hot"), 0, 30_000);
        CompletableFuture<Long> earlyIn = new CompletableFuture<>();
        awaitParkedForNotification(waiterThread(application, "hot", earlyIn, this.handles));
        CompletableFuture<Long> otherIn = new CompletableFuture<>();
        awaitParkedForNotification(waiterThread(other, "hot", otherIn, this.handles));
        outside.close();
        earlyIn.get(10, TimeUnit.SECONDS);
        LockHandle early = lastHandle();
        CompletableFuture<Long> lateIn = new CompletableFuture<>();
        awaitParkedForNotification(waiterThread(application, "hot", lateIn, this.handles));
        early.close();
        return new Turn(early, lateIn, otherIn);
    }

    private LockHandle lastHandle() {
        synchronized (this.handles) {
            return this.handles.get(this.handles.size() - 1);
        }
    }

    private TestRedisClient client() {
        RedisConnectionFactory factory = this.library.connect(redis.server(), Duration.ofSeconds(5));
        this.factories.add(factory);
        // Waiters look at Redis unasked only after a minute, so that only a hand-off or a local hand-over moves
        // the lock; and the turn is bounded by count only, so that a loaded machine's slow steps do not end it.
        TestRedisClient client = TestRedisClient.of(factory, "", Duration.ofSeconds(30), LockLossListener.NONE, null,
                Duration.ofSeconds(60));
        client.store().setLocalHandoverTimeLimit(Duration.ofMinutes(1));
        this.clients.add(client);
        return client;
    }

    /** The first holder of application A's turn (released), and when A's late thread and B got the lock. */
    private record Turn(LockHandle early, CompletableFuture<Long> late, CompletableFuture<Long> other) {
    }
}
