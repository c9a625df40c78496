package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedlockMasters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redlock's fencing tokens on five independent local masters: a take raises each node's counter in the same step,
 * a majority that returned one value needs no second round, and tokens strictly increase whichever majority
 * answers and whatever earlier attempts left on the counters. Judged by reading the nodes' counters and their
 * command statistics directly.
 */
class RedlockFencingTest {

    private static final String KEY = "redlock:fenced";

    private static final Pattern EVALSHA_CALLS = Pattern.compile("cmdstat_evalsha:calls=(\\d+),");

    /** Restarted, resumed and flushed after each test, their factories destroyed. */
    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(5);

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<RedlockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        this.clients.forEach(RedlockClient::close);
    }

    private RedlockClient client() {
        if (this.factories.isEmpty()) {
            this.factories.addAll(masters.connect(Duration.ofSeconds(1)));
        }
        RedlockClient client = new RedlockClient(this.factories, "", Duration.ofSeconds(30), null);
        this.clients.add(client);
        return client;
    }

    private static LockHandle acquire(RedlockClient client, Duration wait, Duration lease) {
        return client.acquire(LockRequest.of(KEY, wait, lease));
    }

    private static void setCounters(String... values) {
        for (int i = 0; i < values.length; i++) {
            masters.get(i).command("SET", RedlockNode.fenceKey(KEY), values[i]);
        }
    }

    private static String counter(int node) {
        return (String) masters.get(node).command("GET", RedlockNode.fenceKey(KEY));
    }

    /** Scripts a node has run since its statistics were last reset. */
    private static long scriptCalls(RedisServer master) {
        Matcher calls = EVALSHA_CALLS.matcher((String) master.command("INFO", "commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    /** Every node took the key, or released it: the calls of a cycle have all arrived. */
    private static void awaitOnEveryNode(boolean held) {
        awaitOnEveryNode(KEY, held);
    }

    private static void awaitOnEveryNode(String key, boolean held) {
        await().untilAsserted(() -> assertThat(masters.all())
            .allSatisfy((master) -> assertThat(master.command("EXISTS", key)).isEqualTo(held ? 1L : 0L)));
    }

    @Test
    void aTakeRaisesEveryCounterItselfAndAMajorityThatAgreesNeedsNoSecondRound() {
        RedlockClient client = client();
        // The first calls of a store may load the scripts; then only this cycle's calls count.
        client.acquire(LockRequest.of("redlock:warm-up", Duration.ZERO, null)).close();
        awaitOnEveryNode("redlock:warm-up", false);
        setCounters("41", "41", "41", "41", "41");
        masters.all().forEach((master) -> master.command("CONFIG", "RESETSTAT"));
        LockHandle handle = acquire(client, Duration.ZERO, Duration.ofSeconds(10));
        assertThat(handle.fencingToken()).isEqualTo(42);
        awaitOnEveryNode(true);
        for (int i = 0; i < 5; i++) {
            assertThat(counter(i)).as("node %d's counter", i).isEqualTo("42");
        }
        handle.close();
        awaitOnEveryNode(false);
        // The take and the release, one call each per node: no call of its own raised the counter.
        assertThat(masters.all()).allSatisfy((master) -> assertThat(scriptCalls(master)).isEqualTo(2));
    }

    @Test
    void aNodeWhoseCounterAFailedAttemptRaisedConfirmsTheTokenInsteadOfFailingTheTake() {
        // Nodes 3 and 4: counters a failed attempt raised, and the key held by another client (not taken there).
        setCounters("100", "100", "102", "105", "105");
        for (int i = 3; i < 5; i++) {
            masters.get(i).command("SET", KEY, "someone-else:1", "PX", "30000");
        }
        RedlockClient client = client();
        LockHandle handle = acquire(client, Duration.ZERO, Duration.ofSeconds(10));
        // One more than the largest counter of the three nodes that took it, raised to on every node: the
        // larger counters of nodes 3 and 4 stand above it and confirm it.
        assertThat(handle.fencingToken()).isEqualTo(103);
        handle.close();
        for (int i = 3; i < 5; i++) {
            masters.get(i).command("DEL", KEY);
        }
        // The next take raises every node's counter by one: nodes 0 to 2 to 104, nodes 3 and 4 to 106. Whichever
        // three answer first, the token stands on a majority and is past the one before.
        LockHandle next = acquire(client, Duration.ZERO, Duration.ofSeconds(10));
        assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
        next.close();
    }

    @Test
    void theHolderViewShowsTheTokenTheMajoritysCountersStandAtWhenSomeNodesAreAboveIt() {
        // Nodes 3 and 4 ahead, as attempts that failed leave them, and paused: nodes 0 to 2 decide the token, 103.
        setCounters("100", "100", "102", "105", "105");
        RedlockClient client = client();
        masters.get(3).pause();
        masters.get(4).pause();
        LockHandle handle;
        try {
            handle = acquire(client, Duration.ZERO, Duration.ofSeconds(10));
        }
        finally {
            masters.get(3).resume();
            masters.get(4).resume();
        }
        assertThat(handle.fencingToken()).isEqualTo(103);
        // Resumed, nodes 3 and 4 take the key too and raise their counters to 106: every node agrees on the
        // holder, and two of them are above its token.
        awaitOnEveryNode(true);
        // The raise, when the first three answers differed, may still be on its way to the others.
        await().untilAsserted(() -> assertThat(client.inspect(KEY).fencingToken()).isEqualTo(handle.fencingToken()));
        handle.close();
    }

    @Test
    void aCounterAnotherClientWroteCountsAsNoneAndTheNodesClockStartsIt() {
        setCounters("not-a-count", "9007199254740993", "-5", "1.5", "");
        RedlockClient client = client();
        long before = System.currentTimeMillis() / 1000 * 1_000_000;
        LockHandle handle = acquire(client, Duration.ZERO, Duration.ofSeconds(10));
        // Each node started it from its own clock (this machine's) in whole seconds, counted in µs: the token is the
        // largest of the majority's.
        assertThat(handle.fencingToken()).isGreaterThanOrEqualTo(before).isLessThan(1L << 53);
        assertThat(handle.fencingToken() % 1_000_000).isZero();
        awaitOnEveryNode(true);
        for (int i = 0; i < 5; i++) {
            assertThat(Long.parseLong(counter(i))).as("node %d's counter", i).isGreaterThanOrEqualTo(before);
        }
        handle.close();
    }

    /**
     * Nodes start with different counters; acquisitions go through different majorities (the other nodes
     * paused). Every token is larger than all before it, although no majority sees every node's counter.
     */
    @Test
    void fencingTokensStrictlyIncreaseWhateverMajorityAnswers() {
        // Counters ahead of every node's clock (in microseconds) by some 20 minutes: they decide the tokens.
        long base = System.currentTimeMillis() * 1000 + 1_200_000_000L;
        long[] primed = { base + 10, base + 50, base + 20, 0, 0 };
        for (int i = 0; i < 5; i++) {
            masters.get(i).command("SET", RedlockNode.fenceKey(KEY), Long.toString(primed[i]));
        }
        List<Set<Integer>> majorities = List.of(Set.of(0, 3, 4), Set.of(1, 2, 3), Set.of(2, 3, 4), Set.of(0, 2, 4),
                Set.of(0, 1, 3), Set.of(3, 4, 0), Set.of(1, 2, 4));
        RedlockClient client = client();
        List<Long> tokens = new ArrayList<>();
        for (Set<Integer> majority : majorities) {
            for (int i = 0; i < 5; i++) {
                if (!majority.contains(i)) {
                    masters.get(i).pause();
                }
            }
            // A wait: an attempt that misses its majority (a running node slow to answer) is retried. A short
            // lease: a paused node may apply an earlier round's acquisition after its release once resumed (the
            // client gave up on that answer), and such a minority copy only goes when its lease ends.
            try (LockHandle handle = acquire(client, Duration.ofSeconds(10), Duration.ofSeconds(2))) {
                tokens.add(handle.fencingToken());
            }
            finally {
                masters.all().forEach(RedisServer::resume);
            }
        }
        // The first majority did not include node 1, whose counter was the largest: a token past it only comes
        // from a majority that, like every one, shares a node with the one before. (Past, not exactly one more:
        // an attempt retried raised the counters of the nodes it took.)
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(tokens.get(0)).isGreaterThan(base + 10).isLessThan(base + 50);
        assertThat(tokens.get(1)).isGreaterThan(base + 50);
    }

    @Test
    void fencingCountersExpireInsteadOfStayingForEveryKeyForever() {
        RedlockClient client = client();
        acquire(client, Duration.ZERO, Duration.ofSeconds(30)).close();
        // A majority raised the counter; the other nodes' raises may still be on their way (-2: none yet).
        List<Long> ttls = masters.all().stream()
            .map((master) -> (Long) master.command("PTTL", RedlockNode.fenceKey(KEY)))
            .toList();
        assertThat(ttls).as("no counter without expiry").doesNotContain(-1L)
            .filteredOn((ttl) -> ttl > 0)
            .hasSizeGreaterThanOrEqualTo(3)
            .allSatisfy((ttl) -> assertThat(ttl).isLessThanOrEqualTo(RedlockNode.FENCE_TTL_MILLIS));
    }
}
