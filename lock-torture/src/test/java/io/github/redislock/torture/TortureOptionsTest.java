package io.github.redislock.torture;

import java.nio.file.Path;
import java.time.Duration;

import org.assertj.core.api.ThrowableAssertAlternative;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The suite's command line: defaults, profiles, and a message naming the option for every bad one. */
class TortureOptionsTest {

    private static final String REDIS = "--redis=redis://127.0.0.1:6390";

    @Test
    void defaultsToTheFullProfile() {
        TortureOptions options = TortureOptions.parse();

        assertThat(options.scenarios()).containsExactly(Scenario.values());
        assertThat(options.workers()).isEqualTo(3);
        assertThat(options.threads()).isEqualTo(8);
        assertThat(options.resources()).isEqualTo(3);
        assertThat(options.lease()).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.fixedLease()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.waitTime()).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.workMillis()).isEqualTo(8);
        assertThat(options.healthyRun()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.warmUp()).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.afterFault()).isEqualTo(Duration.ofSeconds(12));
        assertThat(options.clients()).containsExactly("lettuce", "jedis");
        assertThat(options.external()).isFalse();
        assertThat(options.sabotage()).isNull();
        assertThat(options.records()).isNull();
    }

    @Test
    void shortProfileIsTenSecondsHealthyAndWorkerPauseOnPlainAndReadWriteLocks() {
        TortureOptions options = TortureOptions.parse("--profile=short");

        assertThat(options.scenarios()).containsExactly(Scenario.HEALTHY, Scenario.WORKER_PAUSE,
                Scenario.READ_WRITE_WORKER_PAUSE);
        assertThat(options.healthyRun()).isEqualTo(Duration.ofSeconds(10));
        assertThat(options.afterFault()).isEqualTo(Duration.ofSeconds(10));
        assertThat(options.clients()).containsExactly("lettuce");
    }

    @Test
    void namedScenariosRunInTheOrderGiven() {
        TortureOptions options = TortureOptions.parse("--scenarios=worker-pause, redis-restart",
                "--workers=4", "--lease=500ms", "--fixed-lease=500ms", "--client=jedis");

        assertThat(options.scenarios()).containsExactly(Scenario.WORKER_PAUSE, Scenario.REDIS_RESTART);
        assertThat(options.workers()).isEqualTo(4);
        assertThat(options.lease()).isEqualTo(Duration.ofMillis(500));
        assertThat(options.fixedLease()).isEqualTo(Duration.ofMillis(500));
        assertThat(options.clients()).containsExactly("jedis");
    }

    @Test
    void rejectsUnknownOption() {
        rejected("--workers=3", "--colour=red").withMessageStartingWith("Unknown option(s) [colour]");
    }

    @Test
    void rejectsArgumentThatIsNotAnOption() {
        rejected("workers").withMessageStartingWith("Options are --name=value, not 'workers'");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            --workers=1 | --workers must be at least 2: one to fault and one to see it
            --workers=x | --workers must be a positive whole number, not 'x'
            --resources=1 | --resources must be at least 2, for the sections that lock two
            --lease=0s | --lease must be a positive duration such as 3s or 500ms, not '0s'
            --wait=soon | --wait must be a positive duration such as 3s or 500ms, not 'soon'
            --lease=1s --fixed-lease=2s | --fixed-lease must not be longer than --lease
            --profile=medium | --profile is short or full, not 'medium'
            --client=x | --client is lettuce, jedis or both, not 'x'
            --sabotage=everything | --sabotage: Unknown sabotage 'everything'; there is [release-without-compare, share-drops-a-holder]
            """)
    void rejectsBadValueNamingTheOption(String arguments, String message) {
        rejected(arguments.split(" ")).withMessage(message);
    }

    @Test
    void rejectsTwoExternalEndpoints() {
        rejected(REDIS, "--redlock=redis://127.0.0.1:6391,redis://127.0.0.1:6392")
            .withMessage("Give one of --redis, --sentinel and --redlock, not several");
    }

    @Test
    void rejectsUnknownScenario() {
        rejected("--scenarios=healthy,tornado")
            .withMessageStartingWith("--scenarios: Unknown scenario 'tornado'; the scenarios are [healthy, ");
    }

    @Test
    void externalEndpointRunsOnlyScenariosThatLeaveRedisAlone() {
        TortureOptions options = TortureOptions.parse(REDIS);

        assertThat(options.external()).isTrue();
        assertThat(options.redis()).isEqualTo("redis://127.0.0.1:6390");
        assertThat(options.scenarios()).containsExactly(Scenario.HEALTHY, Scenario.WORKER_KILL,
                Scenario.WORKER_PAUSE, Scenario.WORKER_CLOCK_JUMP, Scenario.SEMAPHORE_HEALTHY,
                Scenario.SEMAPHORE_WORKER_PAUSE, Scenario.READ_WRITE_HEALTHY, Scenario.READ_WRITE_WORKER_PAUSE,
                Scenario.ELECTION_WORKER_PAUSE, Scenario.ELECTION_WORKER_CLOCK_JUMP);
    }

    @Test
    void externalSentinelKeepsTheShortProfile() {
        TortureOptions options = TortureOptions.parse("--sentinel=mymaster@127.0.0.1:26379", "--profile=short");

        assertThat(options.external()).isTrue();
        assertThat(options.scenarios()).containsExactly(Scenario.HEALTHY, Scenario.WORKER_PAUSE,
                Scenario.READ_WRITE_WORKER_PAUSE);
    }

    @Test
    void externalEndpointRejectsScenariosThatFaultRedisWhenNamed() {
        rejected(REDIS, "--scenarios=healthy,redis-pause,sentinel-failover,worker-partition")
            .withMessage("Scenarios [redis-pause, sentinel-failover, worker-partition] fault Redis processes or their "
                    + "links, which the suite does only to servers it started itself");
    }

    @Test
    void zooKeeperScenariosRunOnceOnCuratorAfterTheRedisOnesOnEachClient() {
        TortureOptions options = TortureOptions.parse("--scenarios=zookeeper-healthy,healthy,zookeeper-partition",
                "--client=both");

        assertThat(options.runs()).containsExactly(new TortureOptions.Run(Scenario.HEALTHY, "lettuce"),
                new TortureOptions.Run(Scenario.HEALTHY, "jedis"),
                new TortureOptions.Run(Scenario.ZOOKEEPER_HEALTHY, TortureOptions.CURATOR),
                new TortureOptions.Run(Scenario.ZOOKEEPER_PARTITION, TortureOptions.CURATOR));
    }

    @Test
    void fullProfileIncludesEveryZooKeeperScenarioOnce() {
        TortureOptions options = TortureOptions.parse();

        assertThat(options.runs()).filteredOn((run) -> run.scenario().onZooKeeper())
            .extracting(TortureOptions.Run::scenario)
            .containsExactly(Scenario.ZOOKEEPER_HEALTHY, Scenario.ZOOKEEPER_WORKER_PARTITION,
                    Scenario.ZOOKEEPER_PARTITION, Scenario.ZOOKEEPER_SLOW_LINK, Scenario.ZOOKEEPER_WORKER_CLOCK_JUMP,
                    Scenario.ZOOKEEPER_SERVER_CLOCK_JUMP, Scenario.ZOOKEEPER_LEADER_KILL,
                    Scenario.ZOOKEEPER_FOLLOWER_PARTITION, Scenario.ZOOKEEPER_ENSEMBLE_SPLIT,
                    Scenario.ZOOKEEPER_SEMAPHORE_WORKER_PARTITION, Scenario.ZOOKEEPER_READ_WRITE_WORKER_PARTITION,
                    Scenario.ZOOKEEPER_ELECTION_WORKER_PARTITION);
        assertThat(options.runs()).filteredOn((run) -> !run.scenario().onZooKeeper())
            .hasSize(2 * (Scenario.values().length - 12));
    }

    @Test
    void zooKeeperScenariosHaveFixedIds() {
        assertThat(Scenario.of("zookeeper-worker-partition")).isEqualTo(Scenario.ZOOKEEPER_WORKER_PARTITION);
        assertThat(Scenario.of("zookeeper-server-clock-jump")).isEqualTo(Scenario.ZOOKEEPER_SERVER_CLOCK_JUMP);
        assertThat(Scenario.ZOOKEEPER_HEALTHY.faultFree()).isTrue();
        assertThat(Scenario.ZOOKEEPER_WORKER_PARTITION.faultFree()).isFalse();
    }

    @Test
    void externalEndpointLeavesZooKeeperScenariosOutAndRejectsThemWhenNamed() {
        assertThat(TortureOptions.parse(REDIS).scenarios()).noneMatch(Scenario::onZooKeeper);
        rejected(REDIS, "--scenarios=healthy,zookeeper-healthy")
            .withMessage("Scenarios [zookeeper-healthy] lock on a ZooKeeper server the suite starts, not on your Redis");
    }

    @Test
    void fullProfileRunsTheLeaderElectionScenariosOnEachClientAndOnZooKeeper() {
        TortureOptions options = TortureOptions.parse();

        assertThat(options.runs()).filteredOn((run) -> run.scenario().workload() == Workload.LEADER)
            .containsExactly(new TortureOptions.Run(Scenario.ELECTION_WORKER_PAUSE, "lettuce"),
                    new TortureOptions.Run(Scenario.ELECTION_WORKER_PARTITION, "lettuce"),
                    new TortureOptions.Run(Scenario.ELECTION_REDIS_RESTART, "lettuce"),
                    new TortureOptions.Run(Scenario.ELECTION_WORKER_CLOCK_JUMP, "lettuce"),
                    new TortureOptions.Run(Scenario.ELECTION_WORKER_PAUSE, "jedis"),
                    new TortureOptions.Run(Scenario.ELECTION_WORKER_PARTITION, "jedis"),
                    new TortureOptions.Run(Scenario.ELECTION_REDIS_RESTART, "jedis"),
                    new TortureOptions.Run(Scenario.ELECTION_WORKER_CLOCK_JUMP, "jedis"),
                    new TortureOptions.Run(Scenario.ZOOKEEPER_ELECTION_WORKER_PARTITION, TortureOptions.CURATOR));
    }

    @Test
    void leaderElectionScenariosInjectTheirFaultUnderItsRules() {
        assertThat(Scenario.of("election-worker-pause").fault()).isEqualTo(Scenario.WORKER_PAUSE);
        assertThat(Scenario.of("election-redis-restart").fault()).isEqualTo(Scenario.REDIS_RESTART);
        assertThat(Scenario.of("election-worker-clock-jump").isStrict()).isTrue();
        assertThat(Scenario.of("zookeeper-election-worker-partition").onZooKeeper()).isTrue();
        assertThat(Scenario.ELECTION_WORKER_PARTITION.requirement()).isEqualTo(Scenario.Requirement.NAMESPACES);
    }

    @Test
    void usageNamesEveryScenario() {
        assertThat(TortureOptions.USAGE.replaceAll("\\s+", " "))
            .contains(java.util.Arrays.stream(Scenario.values()).map(Scenario::id).toList());
    }

    @Test
    void parsesSabotage() {
        assertThat(TortureOptions.parse("--sabotage=release-without-compare").sabotage())
            .isEqualTo(Sabotage.RELEASE_WITHOUT_COMPARE);
    }

    @Test
    void parsesRecordsDirectory() {
        assertThat(TortureOptions.parse("--records=/tmp/x").records()).isEqualTo(Path.of("/tmp/x"));
    }

    private static ThrowableAssertAlternative<IllegalArgumentException> rejected(String... args) {
        return assertThatIllegalArgumentException().isThrownBy(() -> TortureOptions.parse(args));
    }
}
