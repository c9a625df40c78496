package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockStore;
import io.github.redislock.test.AutoConfigureInProcessLocks;
import io.github.redislock.test.AutoConfigureLockRecorder;
import io.github.redislock.test.InProcessLockAutoConfiguration;
import io.github.redislock.test.InMemoryLockStore;
import io.github.redislock.test.LockRecorder;
import io.github.redislock.test.TestLocks;
import io.github.redislock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration;
import io.github.redislock.testsupport.ZooKeeperServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

import static io.github.redislock.test.InProcessLockAssertions.assertThatLock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The test artifact ({@code redis-lock-test}) unchanged in whole applications on the ZooKeeper store (Spring Boot's
 * own start-up and auto-configuration from this class path, which holds ZooKeeper and no Redis; the test
 * annotations imported as a test class imports them). What the store holds is read from a client of the test's own,
 * not from the library.
 */
class ZooKeeperTestArtifactTest {

    private static ZooKeeperServer server;

    private static CuratorFramework reader;

    @BeforeAll
    static void startServer() {
        server = new ZooKeeperServer();
        reader = server.client(10_000);
    }

    @AfterAll
    static void stopServer() {
        reader.close();
        server.close();
    }

    @Test
    void thisClassPathHasNoRedis() {
        // So the assertions below also show that the test artifact compiles and runs without Spring Data Redis.
        assertThat(ClassUtils.isPresent("org.springframework.data.redis.connection.RedisConnectionFactory", null))
            .isFalse();
    }

    @Test
    void theInProcessLocksAreOrderedBeforeThisStoreByItsRealName() {
        // lock-test names the ZooKeeper auto-configuration as text (it does not depend on this module): a rename
        // here would silently leave the order to the class names again.
        AutoConfiguration order = InProcessLockAutoConfiguration.class.getAnnotation(AutoConfiguration.class);
        assertThat(order.beforeName()).containsExactly(ZooKeeperLockAutoConfiguration.class.getName());
    }

    @Test
    void inProcessLocksTakeThePlaceOfZooKeeperAndNoLockNodeIsMade() throws Exception {
        try (ConfigurableApplicationContext context = start(InProcessApplication.class, "/in-process")) {
            // The in-process store was there first: the ZooKeeper store backed off, not the other way round.
            assertThat(context.getBean(LockStore.class)).isInstanceOf(InMemoryLockStore.class);
            assertThat(context.getBean(LockProvider.class)).isSameAs(context.getBean(LockEngine.class));
            // Nor does it connect a client to an ensemble whose locks nobody takes.
            assertThat(context.getBeansOfType(ZooKeeperLockStore.class)).isEmpty();
            assertThat(context.getBeansOfType(CuratorFramework.class)).isEmpty();
            InMemoryLockStore provider = context.getBean(InMemoryLockStore.class);
            Sku sku = context.getBean(Sku.class);

            String key = sku.buy("sku/1", () -> {
                assertThatLock(provider, "sku/1").isHeld();
                assertThatThrownBy(() -> assertThatLock(provider, "sku/1").isFree())
                    .hasMessageContaining("Expected lock <sku/1> to be free, but it is held");
            });
            assertThat(key).isEqualTo("sku/1");
            assertThatLock(provider, "sku/1").isFree();
            context.getBean(DistributedLockTemplate.class).run("sku/2", Duration.ZERO, null,
                    () -> assertThatLock(provider, "sku/2").isHeld());
            assertThatLock(provider, "sku/2").isFree();

            // Not one node under the base path, nor the base path itself: nothing went to ZooKeeper.
            assertThat(reader.checkExists().forPath("/in-process")).isNull();
        }
    }

    @Test
    void theRecorderRecordsTheZooKeeperEnginesLocksAsTheyWereTaken() throws Exception {
        try (ConfigurableApplicationContext context = start(RecordedApplication.class, "/recorded")) {
            assertThat(context.getBean(LockProvider.class)).isInstanceOf(LockEngine.class);
            assertThat(context.getBean(LockStore.class)).isInstanceOf(ZooKeeperLockStore.class);
            LockRecorder recorder = context.getBean(LockRecorder.class);
            Sku sku = context.getBean(Sku.class);
            List<Long> czxids = new ArrayList<>();

            AtomicReference<LockHandle> inside = new AtomicReference<>();
            sku.buy("sku/1", () -> {
                inside.set(LockContext.assertHeld());
                czxids.add(onlyNodesCzxid("/recorded/sku%2F1"));
                // While the method runs, the recorder sees the lock held, as ZooKeeper does.
                assertThat(recorder.locks()).singleElement()
                    .satisfies((lock) -> assertThat(lock.heldNow()).isTrue());
            });
            sku.buy("sku/1", () -> czxids.add(onlyNodesCzxid("/recorded/sku%2F1")));
            io.github.redislock.test.LockAssertions.assertThat(recorder)
                .ranUnder("sku/1")
                .tookExactly("sku/1", "sku/1")
                .holdsNothing();
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            template.execute(LockRequest.of(List.of("b", "a"), Duration.ZERO, null), () -> {
                czxids.add(onlyNodesCzxid("/recorded/a"));
                czxids.add(onlyNodesCzxid("/recorded/b"));
                return null;
            });

            io.github.redislock.test.LockAssertions.assertThat(recorder).ranUnder("a").ranUnder("b").holdsNothing();
            List<LockRecorder.RecordedLock> locks = recorder.locks();
            assertThat(locks).extracting(LockRecorder.RecordedLock::key)
                .containsExactly("/recorded/sku%2F1", "/recorded/sku%2F1", "/recorded/a,/recorded/b");
            assertThat(locks.get(0).names()).containsExactly("sku/1");
            assertThat(locks.get(2).names()).containsExactly("a", "b");
            assertThat(locks.get(2).fencingToken()).isEqualTo(czxids.get(2));
            // The recorded tokens are the ones ZooKeeper gave the lock nodes, seen by the test's own client.
            assertThat(locks.get(0).fencingToken()).isEqualTo(czxids.get(0))
                .isEqualTo(inside.get().fencingToken());
            assertThat(locks.get(1).fencingToken()).isEqualTo(czxids.get(1)).isGreaterThan(czxids.get(0));
            // After the calls, no lock node is left under any key.
            for (String node : List.of("/recorded/sku%2F1", "/recorded/a", "/recorded/b")) {
                assertThat(childrenOf(node)).as(node).isEmpty();
            }
        }
    }

    @Test
    void testLocksRunAJobUnderAnInProcessLockBesideAZooKeeperApplication() throws Exception {
        try (ConfigurableApplicationContext context = start(RecordedApplication.class, "/beside")) {
            LockRecorder recorder = context.getBean(LockRecorder.class);
            TestLocks.runUnder("job:report", () -> assertThat(LockContext.assertHeld().key()).isEqualTo("job:report"));
            assertThat(TestLocks.callUnder("job:report", () -> LockContext.assertHeld().fencingToken())).isPositive();
            // The job's lock is the test's own, in this JVM: neither the application's recorder nor ZooKeeper saw it.
            io.github.redislock.test.LockAssertions.assertThat(recorder).tookNone();
            // The base path holds at most this instance's registry node (the holder view's), never a lock's node.
            if (reader.checkExists().forPath("/beside") != null) {
                assertThat(reader.getChildren().forPath("/beside")).containsOnly("~instances");
            }
            // And a job called outside both still fails its own check, as documented.
            assertThatThrownBy(LockContext::assertHeld).isInstanceOf(IllegalStateException.class);
        }
    }

    private static long onlyNodesCzxid(String keyNode) {
        try {
            List<String> children = childrenOf(keyNode);
            assertThat(children).as("lock nodes under %s", keyNode).hasSize(1);
            Stat stat = reader.checkExists().forPath(keyNode + "/" + children.get(0));
            return stat.getCzxid();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static List<String> childrenOf(String node) throws Exception {
        return (reader.checkExists().forPath(node) != null) ? reader.getChildren().forPath(node) : List.of();
    }

    private static ConfigurableApplicationContext start(Class<?> application, String basePath) {
        return new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
            .properties("redis-lock.zookeeper.connect-string=" + server.connectString(),
                    "redis-lock.zookeeper.base-path=" + basePath)
            .run();
    }

    /** A locked service: runs the check under the lock of the given name. */
    static class Sku {

        @DistributedLock(key = "#name")
        public String buy(String name, Runnable check) {
            check.run();
            return LockContext.assertHeld().key();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @AutoConfigureInProcessLocks
    static class InProcessApplication {

        @Bean
        Sku sku() {
            return new Sku();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @AutoConfigureLockRecorder
    static class RecordedApplication {

        @Bean
        Sku sku() {
            return new Sku();
        }
    }
}
