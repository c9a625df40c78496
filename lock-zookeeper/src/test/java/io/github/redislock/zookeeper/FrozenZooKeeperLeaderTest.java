package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.storekit.CandidateProcess;
import io.github.redislock.storekit.Election;
import io.github.redislock.storekit.Election.Candidate;
import io.github.redislock.storekit.LeaderWitness;
import io.github.redislock.testsupport.ProcessSignals;
import io.github.redislock.testsupport.ZooKeeperServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A leader in a JVM of its own is frozen (SIGSTOP) past its ZooKeeper session: the server ends the session, another
 * candidate is granted a larger term (a later creation zxid), the frozen one says LOST when it thaws, and the
 * witness never finds two leaders at once, although the thawed client does not know at once that its session
 * ended: the candidate counts its term over when its thread stood still longer than a renewal period.
 */
class FrozenZooKeeperLeaderTest {

    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    /** The frozen one's session: long enough that a loaded machine does not end it by chance. */
    private static final int SESSION_MILLIS = 4000;

    private static final Duration LEASE = Duration.ofMillis(1500);

    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    @Test
    void aFrozenLeaderIsSucceededAndSaysLostWhenItThawsAndNeverLeadsAlongsideItsSuccessor() throws Exception {
        try (LeaderWitness witness = new LeaderWitness();
                CandidateProcess frozen = CandidateProcess.start("frozen", witness, ZooKeeperCandidateMain.class,
                        zookeeper.server().connectString(), Integer.toString(SESSION_MILLIS), "/leaders", "nightly",
                        Long.toString(LEASE.toMillis()))) {
            await().atMost(LONG_WAIT).until(() -> !frozen.events().isEmpty());
            long term = Long.parseLong(frozen.events().get(0).split(" ")[1]);
            List<CuratorFramework> clients = List.of(zookeeper.server().client(10_000), zookeeper.server().client(10_000));
            Map<String, LockEngine> engines = new LinkedHashMap<>();
            for (CuratorFramework client : clients) {
                engines.put("engine-" + engines.size(), new LockEngine(
                        new ZooKeeperLockStore(client, "/leaders", Duration.ofSeconds(2)), LEASE, LockLossListener.NONE));
            }
            try (Election others = new Election("nightly", engines, Duration.ofSeconds(1), witness)) {
                Candidate successor = ProcessSignals.frozenWhile(frozen.process(), () -> others.awaitLeader(LONG_WAIT));
                await().atMost(LONG_WAIT).until(() -> frozen.events().size() >= 2);
                assertThat(frozen.events().subList(0, 2)).containsExactly("GRANTED " + term, "REVOKED " + term + " LOST");
                assertThat(successor.candidate().term().getAsLong()).isGreaterThan(term);
                await().atMost(LONG_WAIT).until(() -> witness.terms().size() >= 2);
            }
            finally {
                engines.values().forEach(LockEngine::close);
                clients.forEach(CuratorFramework::close);
            }
            assertThat(witness.breaches()).isEmpty();
        }
    }
}
