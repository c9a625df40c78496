package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.LockValues;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Releases hand the lock to the next queued client (a pub/sub message to that client only), which gives it to
 * its first waiting thread; waiters fall back to timed retries when messages are lost. On Lettuce and on Jedis.
 */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
class NotifiedWaitingTest {

    @Parameter
    ClientLibrary library;

    private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(20);

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.perTest();

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<TestRedisClient> clients = new ArrayList<>();

    @AfterEach
    void stopRedis() {
        this.clients.forEach(TestRedisClient::close);
        this.factories.forEach(TestConnections::destroy);
    }

    private TestRedisClient client() {
        // Timed retries happen only when the holder's lease would run out: on a loaded machine the default
        // one-second safety retry could otherwise be mistaken for a notification, or add attempts.
        return client(Duration.ofSeconds(60));
    }

    /** A client whose first waiters look at Redis unasked at least this often. */
    private TestRedisClient client(Duration maxUnnotifiedWait) {
        RedisConnectionFactory factory = this.library.connect(redis.server(), Duration.ofSeconds(5));
        this.factories.add(factory);
        TestRedisClient client = TestRedisClient.of(factory, "", Duration.ofSeconds(30), LockLossListener.NONE, null,
                maxUnnotifiedWait);
        // A turn's local hand-overs are bounded by count and by time (50 ms by default). These tests count them,
        // one per waiter with the test's checks in between, which on a loaded machine can outlast 50 ms: the
        // turn would end early and add a hand-off in Redis. Bounded by count only here.
        client.store().setLocalHandoverTimeLimit(Duration.ofMinutes(1));
        this.clients.add(client);
        return client;
    }

    /** Starts a thread that waits up to 20 s for the key; its handle goes to the list, its time to the future. */
    static Thread waiterThread(LockEngine client, String key, CompletableFuture<Long> acquiredAt,
            List<LockHandle> handles) {
        return waiterThread(client, key, acquiredAt, handles, false);
    }

    /** A thread that takes the key with a long wait, with a renewed or a fixed 30 s lease. */
    static Thread waiterThread(LockEngine client, String key, CompletableFuture<Long> acquiredAt,
            List<LockHandle> handles, boolean renewed) {
        Thread thread = new Thread(() -> {
            try {
                LockHandle handle = acquire(client, List.of(key), LONG_WAIT, 30_000, renewed);
                long now = System.nanoTime();
                synchronized (handles) {
                    handles.add(handle);
                }
                acquiredAt.complete(now);
            }
            catch (Throwable ex) {
                acquiredAt.completeExceptionally(ex);
            }
        });
        thread.start();
        return thread;
    }

    @Test
    void releaseWakesTheWaiterAtOnceRatherThanAtItsTimedRetry() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = client();
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        CompletableFuture<Long> acquiredAt = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        Thread waiter = waiterThread(waiterClient, "hot", acquiredAt, handles);
        awaitParkedForNotification(waiter);
        // The waiter has just parked for up to a second (its timed retry); only a notification wakes it sooner.
        long released = System.nanoTime();
        holder.close();
        long latency = acquiredAt.get(10, TimeUnit.SECONDS) - released;
        assertThat(Duration.ofNanos(latency)).isLessThan(Duration.ofMillis(300));
        handles.forEach(LockHandle::close);
    }

    @Test
    void releasesHandTheLockOnInTurnWithoutAnyFailedAttempt() throws Exception {
        TestRedisClient waiterClient = subscribed(client());
        waiterClient.store().setLocalHandoverLimit(0);
        List<LockHandle> inTurn = eightWaitersInTurn(waiterClient, true);
        // Nine releases, each handing the lock on or deleting it, and eight take-overs, one per hand-off, each
        // confirmed by Redis: nobody woke to find the lock taken.
        assertThat(scriptCalls()).as((String) redis.command("INFO", "commandstats")).isEqualTo(9 + 8);
        assertThat(inTurn).extracting(LockHandle::token).doesNotHaveDuplicates();
    }

    @Test
    void threadsOfOneApplicationPassTheLockOnAmongThemselvesWithGrowingFencesAndNoRedisCall() throws Exception {
        TestRedisClient waiterClient = subscribed(client());
        List<LockHandle> inTurn = eightWaitersInTurn(waiterClient, true);
        // The holder's release hands the lock to the application, its first thread takes it over, seven local
        // hand-overs (same renewed lease, no extension needed), and the last thread's release: 3 scripts.
        assertThat(scriptCalls()).as((String) redis.command("INFO", "commandstats")).isEqualTo(3);
        assertThat(inTurn).extracting(LockHandle::token).as("one value in Redis all along").containsOnly(
                inTurn.get(0).token());
        for (int i = 1; i < inTurn.size(); i++) {
            assertThat(inTurn.get(i).fencingToken()).isEqualTo(inTurn.get(i - 1).fencingToken() + 1);
        }
    }

    @Test
    void aLocalHandOverRunStopsAtItsLimitAndTheNextHolderCountsOnFromTheLastFence() throws Exception {
        TestRedisClient waiterClient = subscribed(client());
        waiterClient.store().setLocalHandoverLimit(3);
        List<LockHandle> inTurn = eightWaitersInTurn(waiterClient, true);
        // Runs of 1 + 3 holders per tenure in Redis: the fourth release goes to Redis and hands the lock back to
        // the application (the only one queued), whose next thread takes it over under a token of its own.
        assertThat(inTurn).extracting(LockHandle::token).containsExactly(inTurn.get(0).token(),
                inTurn.get(0).token(), inTurn.get(0).token(), inTurn.get(0).token(), inTurn.get(4).token(),
                inTurn.get(4).token(), inTurn.get(4).token(), inTurn.get(4).token());
        assertThat(inTurn.get(4).token()).isNotEqualTo(inTurn.get(0).token());
        for (int i = 1; i < inTurn.size(); i++) {
            assertThat(inTurn.get(i).fencingToken()).isGreaterThan(inTurn.get(i - 1).fencingToken());
        }
    }

    @Test
    void aLockWithAFixedLeaseIsExtendedToTheNextHoldersFullLeaseWhenPassedOn() throws Exception {
        TestRedisClient waiterClient = subscribed(client());
        List<LockHandle> inTurn = eightWaitersInTurn(waiterClient, false);
        // As above, plus one compare-and-extend per local hand-over: each holder gets its full fixed lease.
        assertThat(scriptCalls()).as((String) redis.command("INFO", "commandstats")).isEqualTo(3 + 7);
        assertThat(commandCalls("pexpire")).isEqualTo(7);
        assertThat(inTurn).extracting(LockHandle::token).containsOnly(inTurn.get(0).token());
    }

    @Test
    void aLockPassedOnWhoseKeyTurnsOutNoLongerOursIsNeverSilentlyUsed() throws Exception {
        List<String> lost = java.util.Collections.synchronizedList(new ArrayList<>());
        RedisConnectionFactory factory = this.library.connect(redis.server(), Duration.ofSeconds(5));
        this.factories.add(factory);
        TestRedisClient waiterClient = TestRedisClient.of(factory, "", Duration.ofSeconds(30),
                (key, token, fence, detection) -> lost.add(key + " " + fence + " " + detection), null);
        // The first waiter's release must pass the lock on here, however long the test's steps in between take
        // on a loaded machine (past the default 50 ms the turn ends and the release goes to Redis instead).
        waiterClient.store().setLocalHandoverTimeLimit(Duration.ofMinutes(1));
        this.clients.add(waiterClient);
        LockHandle other = acquire(client(), List.of("hot"), 0, 30_000);
        List<LockHandle> handles = new ArrayList<>();
        CompletableFuture<Long> firstIn = new CompletableFuture<>();
        CompletableFuture<Long> secondIn = new CompletableFuture<>();
        Thread first = waiterThread(waiterClient, "hot", firstIn, handles);
        awaitParkedForNotification(first);
        awaitParkedForNotification(waiterThread(waiterClient, "hot", secondIn, handles));
        other.close();
        firstIn.get(10, TimeUnit.SECONDS);
        LockHandle firstHandle = handles.get(0);
        // Lost behind the holder's back (a failover to a replica that missed it, an operator): someone else's
        // lock for half a second.
        redis.command("SET", "hot", "someone-else", "PX", "500");
        long releasedAt = System.nanoTime();
        firstHandle.close();
        secondIn.get(10, TimeUnit.SECONDS);
        LockHandle second = handles.get(1);
        if (this.library == ClientLibrary.LETTUCE) {
            // Passed on at once with the extension sent behind it: its reply finds the key not ours, and the
            // new holder is told.
            await().atMost(Duration.ofSeconds(10)).until(second::isLost);
            assertThat(lost).containsExactly("hot " + second.fencingToken() + " RENEWAL");
            assertThat(second.fencingToken()).isEqualTo(firstHandle.fencingToken() + 1);
        }
        else {
            // Extended first, which finds the key not ours: the second thread waits and takes the key afresh.
            assertThat(Duration.ofNanos(secondIn.get() - releasedAt)).isGreaterThan(Duration.ofMillis(400));
            assertThat(second.token()).isNotEqualTo(firstHandle.token());
            assertThat(lost).isEmpty();
        }
        second.close();
    }

    /**
     * Another client holds "hot"; eight threads of the given client line up for it one at a time (so the
     * line's order is known), the holder releases and each waiter, as it gets in, checks that the later ones
     * have not and releases in turn. Script calls are counted from the holder's release.
     * @return the waiters' handles in the order they got in, all closed
     */
    private List<LockHandle> eightWaitersInTurn(TestRedisClient waiterClient, boolean renewed) throws Exception {
        LockHandle holder = acquire(client(), List.of("hot"), 0, 30_000);
        List<CompletableFuture<Long>> acquired = new ArrayList<>();
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            CompletableFuture<Long> future = new CompletableFuture<>();
            acquired.add(future);
            awaitParkedForNotification(waiterThread(waiterClient, "hot", future, handles, renewed));
        }
        redis.command("CONFIG", "RESETSTAT");
        holder.close();
        List<LockHandle> inTurn = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            acquired.get(i).get(10, TimeUnit.SECONDS);
            for (int later = i + 1; later < 8; later++) {
                assertThat(acquired.get(later).isDone()).as("waiter %d before %d", later, i).isFalse();
            }
            LockHandle current;
            synchronized (handles) {
                current = handles.get(handles.size() - 1);
            }
            // The key holds a token of one of the application's acquisitions, which no other thread can take
            // over in Redis.
            assertThat(redis.command("GET", "hot")).isEqualTo(current.token());
            assertThat(current.token()).doesNotStartWith(waiterClient.clientId() + ":");
            inTurn.add(current);
            current.close();
        }
        assertThat(LockValues.held(redis.command("GET", "hot"))).isFalse();
        return inTurn;
    }

    @Test
    void oneSubscriptionPerClientWhateverTheKeys() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = client();
        List<LockHandle> holders = new ArrayList<>();
        List<CompletableFuture<Long>> acquired = new ArrayList<>();
        List<LockHandle> handles = new ArrayList<>();
        for (String key : List.of("a", "b", "c")) {
            holders.add(acquire(holderClient, List.of(key), 0, 30_000));
            CompletableFuture<Long> future = new CompletableFuture<>();
            acquired.add(future);
            awaitParkedForNotification(waiterThread(waiterClient, key, future, handles));
        }
        String channel = awaitSubscribed(waiterClient);
        assertThat(listOf(redis.command("PUBSUB", "CHANNELS", "*"))).containsExactly(channel);
        assertThat(listOf(redis.command("PUBSUB", "NUMSUB", channel))).containsExactly(channel, 1L);
        holders.forEach(LockHandle::close);
        for (CompletableFuture<Long> future : acquired) {
            future.get(10, TimeUnit.SECONDS);
        }
        handles.forEach(LockHandle::close);
    }

    @Test
    void aClientWhoseWaitersGaveUpLeavesTheQueueAndPassesOnALockHandedToItMeanwhile() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient impatientClient = client();
        // Subscribed before it waits: otherwise the confirmation of its subscription, coming late on a loaded
        // machine, makes its waiter look at Redis, which may take the hand-off over before its message arrives;
        // the message, late, then finds nobody waiting and takes the client out of the queue while it holds the
        // lock (safe: it passes on only a hand-off that is still its own), and this test is about the message.
        TestRedisClient patientClient = subscribed(client());
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        // First in the queue, then gives up: its entry goes at once.
        assertThat(acquire(impatientClient, List.of("hot"), TimeUnit.MILLISECONDS.toNanos(200), 30_000)).isNull();
        await().atMost(Duration.ofSeconds(5)).until(() -> listOf(redis.command("LRANGE", KeySlots.queueKey("hot"),
                "0", "-1")).isEmpty());
        CompletableFuture<Long> acquired = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        awaitParkedForNotification(waiterThread(patientClient, "hot", acquired, handles));
        // A release that hands the lock to the impatient client just as its last waiter left: put its entry back
        // at the head of the queue.
        redis.command("LPUSH", KeySlots.queueKey("hot"), impatientClient.clientId());
        redis.command("HSET", KeySlots.queueEntriesKey("hot"), impatientClient.clientId(),
                (System.currentTimeMillis() + 30_000) + ":30000:PUBLISH:"
                        + KeySlots.handoffChannelPrefix("", "hot", false) + impatientClient.clientId());
        long released = System.nanoTime();
        holder.close();
        assertThat(Duration.ofNanos(acquired.get(10, TimeUnit.SECONDS) - released)).isLessThan(Duration.ofMillis(500));
        assertThat(handles.get(0).isHeld()).isTrue();
        assertThat(redis.command("GET", "hot")).isEqualTo(handles.get(0).token());
        // The impatient client left the queue when it passed the lock on.
        assertThat(listOf(redis.command("LRANGE", KeySlots.queueKey("hot"), "0", "-1")))
                .containsExactly(patientClient.clientId());
        handles.get(0).close();
    }

    @Test
    void aHandOffIsTakenOverOnlyAsRedisConfirmsItWithALeaseCountedFromThen() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = subscribed(client());
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        CompletableFuture<Long> acquired = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        awaitParkedForNotification(waiterThread(waiterClient, "hot", acquired, handles));
        // A hand-off to the waiting application with 2 s left of the lease the release set, then its message.
        redis.command("SET", "hot", waiterClient.clientId() + ":123", "PX", "2000");
        redis.command("PUBLISH", KeySlots.handoffChannelPrefix("", "hot", false) + waiterClient.clientId(), "hot");
        acquired.get(10, TimeUnit.SECONDS);
        LockHandle handle = handles.get(0);
        assertThat(handle.fencingToken()).isEqualTo(123L);
        assertThat(redis.command("GET", "hot")).isEqualTo(handle.token());
        assertThat(handle.token()).doesNotStartWith(waiterClient.clientId());
        // The waiter's own 30 s lease, set when Redis confirmed the take-over, not what was left of the hand-off.
        assertThat((Long) redis.command("PTTL", "hot")).isGreaterThan(2_000L);
        assertThat(holder.isHeld()).isTrue(); // it was overwritten behind its back: its release finds that out
        holder.close();
        assertThat(holder.isLost()).isTrue();
        assertThat(redis.command("GET", "hot")).isEqualTo(handle.token());
        handle.close();
    }

    @Test
    void aHandOffThatExpiredBeforeItsTakeOverIsNotUsed() throws Exception {
        TestRedisClient waiterClient = subscribed(client());
        redis.command("SET", "hot", "someone:1", "PX", "30000");
        CompletableFuture<Long> acquired = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        awaitParkedForNotification(waiterThread(waiterClient, "hot", acquired, handles));
        // Handed to the waiting application, but gone before the message arrives (a frozen JVM, say).
        redis.command("SET", "hot", waiterClient.clientId() + ":123", "PX", "1");
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.command("EXISTS", "hot").equals(0L));
        redis.command("PUBLISH", KeySlots.handoffChannelPrefix("", "hot", false) + waiterClient.clientId(), "hot");
        acquired.get(10, TimeUnit.SECONDS);
        LockHandle handle = handles.get(0);
        // Taken free, with a fresh fence and the key holding the thread's own token; nothing of the expired
        // hand-off was trusted.
        assertThat(handle.fencingToken()).isGreaterThan(123L);
        assertThat(redis.command("GET", "hot")).isEqualTo(handle.token());
        handle.close();
    }

    @Test
    void twoWaitingThreadsOfOneApplicationTakeAHandOffOverOneAtATime() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = client();
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        List<CompletableFuture<Long>> acquired = List.of(new CompletableFuture<>(), new CompletableFuture<>());
        List<LockHandle> handles = new ArrayList<>();
        awaitParkedForNotification(waiterThread(waiterClient, "hot", acquired.get(0), handles));
        awaitParkedForNotification(waiterThread(waiterClient, "hot", acquired.get(1), handles));
        holder.close();
        acquired.get(0).get(10, TimeUnit.SECONDS);
        LockHandle first = handles.get(0);
        // The same hand-off's message again: the second thread looks at Redis and finds the key its neighbour's.
        redis.command("PUBLISH", KeySlots.handoffChannelPrefix("", "hot", false) + waiterClient.clientId(), "hot");
        assertThat(acquired.get(1)).failsWithin(Duration.ofMillis(300));
        assertThat(redis.command("GET", "hot")).isEqualTo(first.token());
        first.close();
        acquired.get(1).get(10, TimeUnit.SECONDS);
        LockHandle second = handles.get(1);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(redis.command("GET", "hot")).isEqualTo(second.token());
        second.close();
    }

    @Test
    void aKeyWithoutExpiryIsLookedAtOnTheTimedRetryNotInABusyLoop() {
        TestRedisClient waiterClient = client(Duration.ofMillis(200));
        // Someone else's lock without a lease (a plain SET, no PX): PTTL says -1.
        redis.command("SET", "hot", "someone-else");
        redis.command("CONFIG", "RESETSTAT");
        assertThat(acquire(waiterClient, List.of("hot"), TimeUnit.MILLISECONDS.toNanos(700), 30_000)).isNull();
        // One attempt at the start and one per 200 ms after it, not one every few milliseconds.
        assertThat(scriptCalls()).as((String) redis.command("INFO", "commandstats")).isBetween(2L, 6L);
    }

    @Test
    void aQueuedClientThatStoppedRefreshingIsSkipped() {
        TestRedisClient holderClient = client();
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        // A client that queued and then vanished: its entry expired a second ago.
        long expired = System.currentTimeMillis() - 1_000;
        redis.command("RPUSH", KeySlots.queueKey("hot"), "gone");
        redis.command("HSET", KeySlots.queueEntriesKey("hot"), "gone",
                expired + ":30000:PUBLISH:" + KeySlots.handoffChannelPrefix("", "hot", false) + "gone");
        holder.close();
        assertThat(redis.command("EXISTS", "hot")).isEqualTo(0L);
        assertThat(redis.command("LLEN", KeySlots.queueKey("hot"))).isEqualTo(0L);
        assertThat(redis.command("HLEN", KeySlots.queueEntriesKey("hot"))).isEqualTo(0L);
    }

    @Test
    void expiryPublishesNothingSoTheWaiterRetriesWhenTheLeaseRunsOut() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = client();
        // The lease starts when Redis runs the holder's take, somewhere between these two stamps: the waiter's
        // earliest entry is judged from the first, its latest from the second (a loaded machine returned the take
        // to the caller some time after Redis ran it, and the waiter got in 246.7 ms after the second stamp).
        long beforeTake = System.nanoTime();
        acquire(holderClient, List.of("hot"), 0, 300); // never released: it expires
        long afterTake = System.nanoTime();
        LockHandle handle = acquire(waiterClient, List.of("hot"), LONG_WAIT, 30_000);
        long gotIn = System.nanoTime();
        assertThat(handle).isNotNull();
        assertThat(Duration.ofNanos(gotIn - beforeTake)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(Duration.ofNanos(gotIn - afterTake)).isLessThanOrEqualTo(Duration.ofMillis(900));
        handle.close();
    }

    @Test
    void droppedSubscriptionFallsBackToTimedRetriesAndResubscribes() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = client(Duration.ofMillis(500));
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        CompletableFuture<Long> first = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        Thread waiter = waiterThread(waiterClient, "hot", first, handles);
        awaitParkedForNotification(waiter);
        redis.command("CLIENT", "KILL", "TYPE", "pubsub");
        holder.close();
        assertThat(first.get(10, TimeUnit.SECONDS)).isNotNull();
        LockHandle second = handles.get(0);
        // Lettuce reconnects and resubscribes; the next wait is notified again.
        CompletableFuture<Long> next = new CompletableFuture<>();
        Thread nextWaiter = waiterThread(waiterClient, "hot-2", next, handles);
        nextWaiter.join(); // "hot-2" is free: taken at once
        LockHandle third = handles.get(1);
        CompletableFuture<Long> notified = new CompletableFuture<>();
        Thread blocked = waiterThread(client(), "hot-2", notified, handles);
        awaitParkedForNotification(blocked);
        long released = System.nanoTime();
        third.close();
        assertThat(Duration.ofNanos(notified.get(10, TimeUnit.SECONDS) - released)).isLessThan(Duration.ofMillis(300));
        second.close();
        handles.get(2).close();
    }

    @Test
    void aSubscriptionTheServerDroppedComesBackAndWakesWaitersAgain() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = client();
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        CompletableFuture<Long> acquired = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        Thread waiter = waiterThread(waiterClient, "hot", acquired, handles);
        awaitParkedForNotification(waiter);
        String channel = awaitSubscribed(waiterClient);
        redis.command("CLIENT", "KILL", "TYPE", "pubsub");
        // Lettuce reconnects and subscribes again by itself; on Jedis the listener container does, after its
        // back-off.
        await("the subscription to come back").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> listOf(redis.command("PUBSUB", "NUMSUB", channel)).get(1).equals(1L));
        awaitParkedForNotification(waiter);
        long released = System.nanoTime();
        holder.close();
        assertThat(Duration.ofNanos(acquired.get(10, TimeUnit.SECONDS) - released)).isLessThan(Duration.ofMillis(300));
        handles.forEach(LockHandle::close);
    }

    @Test
    void closingAClientWithAnActiveSubscriptionIsQuickAndUnsubscribes() throws Exception {
        TestRedisClient holderClient = client();
        TestRedisClient waiterClient = client();
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        assertThat(acquire(waiterClient, List.of("hot"), TimeUnit.MILLISECONDS.toNanos(100), 30_000)).isNull();
        String channel = awaitSubscribed(waiterClient);
        long start = System.nanoTime();
        waiterClient.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
        await("the unsubscribe").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> listOf(redis.command("PUBSUB", "NUMSUB", channel)).get(1).equals(0L));
        holder.close();
    }

    /**
     * Makes the client subscribe to its hand-off channel before the test's own scenario starts, so that the
     * look at Redis that follows the subscription's confirmation cannot interleave with it.
     */
    private TestRedisClient subscribed(TestRedisClient client) {
        redis.command("SET", "subscribe-first", "someone:1", "PX", "30000");
        assertThat(acquire(client, List.of("subscribe-first"), TimeUnit.MILLISECONDS.toNanos(10), 30_000)).isNull();
        awaitSubscribed(client);
        redis.command("DEL", "subscribe-first");
        return client;
    }

    /**
     * Waits until Redis counts the client's (standalone) hand-off channel as subscribed: the subscription is made
     * in the background after the first waiter joined.
     * @return the channel
     */
    private String awaitSubscribed(TestRedisClient client) {
        String channel = KeySlots.handoffChannelPrefix("", "any", false) + client.clientId();
        await("the hand-off subscription").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> listOf(redis.command("PUBSUB", "NUMSUB", channel)).get(1).equals(1L));
        return channel;
    }

    /** Waits until the thread sleeps waiting for a release notification (not in a Redis call). */
    static void awaitParkedForNotification(Thread thread) {
        await("the waiter to park for a notification").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> thread.getState() == Thread.State.TIMED_WAITING
                        && java.util.concurrent.locks.LockSupport.getBlocker(thread) instanceof Line);
    }

    private static List<Object> listOf(Object reply) {
        return new ArrayList<>((List<?>) reply);
    }

    private static long field(String line, String name) {
        int start = line.indexOf(name) + name.length();
        int end = line.indexOf(',', start);
        return Long.parseLong(line.substring(start, (end < 0) ? line.length() : end));
    }

    private long scriptCalls() {
        long calls = 0;
        for (String line : ((String) redis.command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                // Runs, not calls: an EVALSHA refused with NOSCRIPT is retried as EVAL.
                calls += field(line, "calls=") - field(line, "failed_calls=");
            }
        }
        return calls;
    }

    /** How often Redis ran the command (also inside scripts) since the statistics were reset. */
    private long commandCalls(String command) {
        for (String line : ((String) redis.command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                return field(line, "calls=");
            }
        }
        return 0;
    }
}
