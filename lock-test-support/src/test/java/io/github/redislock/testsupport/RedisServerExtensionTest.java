package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extension's lifetimes, told apart by the process ids their tests see: a server per test is a new process
 * every time, and the one before it no longer listens; a class's server is one process, shared with its
 * {@code @Nested} classes; a configured server runs with its options.
 */
@LineIndependent
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisServerExtensionTest {

    @RegisterExtension
    static final RedisServerExtension perTest = RedisServerExtension.perTest();

    @RegisterExtension
    static final RedisServerExtension shared = RedisServerExtension.shared()
        .configured(RedisServer.builder().arguments("--maxmemory", "10mb"));

    private static final List<Long> perTestPids = new ArrayList<>();

    private static final List<Integer> perTestPorts = new ArrayList<>();

    private static final List<Long> sharedPids = new ArrayList<>();

    @Test
    @Order(1)
    void firstTestRecordsItsServers() {
        record();
        shared.command("SET", "kept", "1");
        assertThat(shared.command("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
    }

    @Test
    @Order(2)
    void aServerPerTestIsANewProcessAndTheOldOneIsGone() {
        record();
        assertThat(perTestPids).doesNotHaveDuplicates();
        assertThat(RedisServer.isListening(perTestPorts.get(0))).as("the first test's server").isFalse();
    }

    @Test
    @Order(3)
    void aSharedServerIsOneProcessAndKeepsItsKeys() {
        record();
        assertThat(sharedPids).containsOnly(sharedPids.get(0));
        assertThat(shared.command("GET", "kept")).isEqualTo("1");
    }

    private static void record() {
        perTestPids.add(perTest.server().pid());
        perTestPorts.add(perTest.server().port());
        sharedPids.add(shared.server().pid());
    }

    @Nested
    class Inner {

        @Test
        void aNestedClassSharesItsOuterClassesServer() {
            assertThat(shared.server().pid()).isEqualTo(sharedPids.get(0));
            assertThat(shared.command("GET", "kept")).isEqualTo("1");
        }
    }
}
