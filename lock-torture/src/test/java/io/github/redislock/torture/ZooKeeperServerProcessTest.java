package io.github.redislock.torture;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The ZooKeeper server of the {@code zookeeper-*} scenarios: a JVM of its own that grants the session timeout the
 * workers ask for, takes a {@link FakeClock}, and leaves its log (not its data) behind when closed; and the ensemble
 * of three such servers.
 */
class ZooKeeperServerProcessTest {

    @TempDir
    Path directory;

    @Test
    void grantsTheSessionTimeoutAskedForAndLeavesOnlyItsLogBehind() throws Exception {
        ZooKeeperServerProcess server = ZooKeeperServerProcess.start(System.getProperty("java.class.path"),
                this.directory, java.util.Map.of());
        try (CuratorFramework client = client(server)) {
            assertThat(server.status()).contains("Mode: standalone", "Zookeeper version: " + ZooKeeperServerProcess.version());
            client.create().withMode(CreateMode.EPHEMERAL).forPath("/ephemeral");
            assertThat(client.getZookeeperClient().getZooKeeper().getSessionTimeout()).isEqualTo(3000);
        }
        finally {
            server.close();
        }
        assertThatThrownBy(server::status).hasMessageContaining("does not answer");
        Path own = Files.list(this.directory).findFirst().orElseThrow();
        assertThat(own.resolve("data")).doesNotExist();
        assertThat(Files.readString(own.resolve("zookeeper.log"), StandardCharsets.UTF_8)).contains("binding to port");
    }

    @Test
    void runsOnAFakeClockThatStampsItsNodes() throws Exception {
        assumeTrue(FakeClock.unavailable().isEmpty(), () -> "skipped: " + FakeClock.unavailable().orElseThrow());
        try (FakeClock clock = FakeClock.create(this.directory)) {
            ZooKeeperServerProcess server = ZooKeeperServerProcess.start(System.getProperty("java.class.path"),
                    this.directory, clock.environment());
            try (CuratorFramework client = client(server)) {
                clock.offset(Duration.ofSeconds(100));
                // The node's creation time is the server's wall clock, which libfaketime moves within a second.
                await().atMost(FakeClock.LAG.multipliedBy(3)).untilAsserted(() -> {
                    Stat stat = new Stat();
                    client.create().storingStatIn(stat).withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath("/stamped-");
                    assertThat((stat.getCtime() - System.currentTimeMillis()) / 1000).isCloseTo(100, within(5L));
                });
            }
            finally {
                server.close();
            }
        }
    }

    /**
     * The ensemble of the {@code zookeeper-*} ensemble scenarios: three servers in namespaces of their own, one
     * leading; with the leader killed another leads and a client's data survives, and the killed one rejoins on its
     * data as a follower.
     */
    @Test
    void anEnsembleElectsAnotherLeaderWhenItsLeaderIsKilledAndTakesItBackAsAFollower() throws Exception {
        assumeTrue(NetworkLab.unavailable().isEmpty(), () -> "skipped: " + NetworkLab.unavailable().orElseThrow());
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(System.getProperty("java.class.path"), this.directory,
                Duration.ofSeconds(3))) {
            int leader = ensemble.leader();
            assertThat(java.util.stream.IntStream.range(0, 3).mapToObj(ensemble::modeOf))
                .containsExactlyInAnyOrder("leader", "follower", "follower");
            try (CuratorFramework client = CuratorFrameworkFactory.newClient(
                    ensemble.workerProperties().get("redis-lock.zookeeper.connect-string"), 3000, 10_000,
                    new RetryOneTime(100))) {
                client.start();
                assertThat(client.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                client.create().forPath("/kept", new byte[] { 1 });

                ensemble.servers().get(leader - 1).kill();

                await().atMost(Duration.ofSeconds(30)).until(() -> leaderOrNone(ensemble) > 0);
                assertThat(ensemble.leader()).isNotEqualTo(leader);
                assertThat(client.getData().forPath("/kept")).containsExactly(1);

                ensemble.servers().get(leader - 1).restart();

                assertThat(ensemble.modeOf(leader - 1)).isEqualTo("follower");
            }
        }
    }

    private static int leaderOrNone(ZooKeeperEnsemble ensemble) {
        try {
            return ensemble.leader();
        }
        catch (IllegalStateException ex) {
            return 0;
        }
    }

    private static CuratorFramework client(ZooKeeperServerProcess server) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(server.connectString(), 3000, 10_000,
                new RetryOneTime(100));
        client.start();
        assertThat(client.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return client;
    }
}
