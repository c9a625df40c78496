package io.github.redislock.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Servers in namespaces of their own: the host reaches each, they reach each other, a cut between two leaves the
 * host's links alone, and closing leaves nothing behind.
 */
class ServerLabTest {

    @BeforeEach
    void needsNamespaces() {
        assumeTrue(NetworkLab.unavailable().isEmpty(), () -> "skipped: " + NetworkLab.unavailable().orElseThrow());
    }

    @Test
    void aCutBetweenTwoServersLeavesTheHostsLinksAlone() throws Exception {
        try (ServerLab lab = ServerLab.open(2);
                RedisServer one = RedisServer.builder().host(lab.address(1)).wrapper(lab.wrapper(1)).port(6379).start();
                RedisServer two = RedisServer.builder().host(lab.address(2)).wrapper(lab.wrapper(2)).port(6379).start()) {
            assertThat(connects(lab, 1, lab.address(2))).isTrue();

            lab.isolate(1, Set.of(2));

            assertThat(connects(lab, 1, lab.address(2))).isFalse();
            assertThat(connects(lab, 2, lab.address(1))).isFalse();
            assertThat(one.command("PING")).isEqualTo("PONG");
            assertThat(two.command("PING")).isEqualTo("PONG");

            lab.heal(1);

            assertThat(connects(lab, 1, lab.address(2))).isTrue();
        }
    }

    @Test
    void closeRemovesNamespacesVethsAndTheBridge() throws Exception {
        String own = "rlt" + ProcessHandle.current().pid();
        try (ServerLab lab = ServerLab.open(2)) {
            assertThat(run("ip", "netns", "list")).contains(own + "s1", own + "s2");
            assertThat(run("ip", "-o", "link", "show")).contains(own + "b", own + "s1h");
        }
        assertThat(run("ip", "netns", "list")).doesNotContain(own + "s");
        assertThat(run("ip", "-o", "link", "show")).doesNotContain(own + "b").doesNotContain(own + "s1h");
    }

    /** Whether a TCP connection from inside server {@code i}'s namespace to a Redis port is accepted within 2 s. */
    private static boolean connects(ServerLab lab, int from, String address) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("timeout", "2"));
        command.addAll(lab.wrapper(from));
        command.addAll(List.of("bash", "-c", "exec 3<>/dev/tcp/" + address + "/6379"));
        return new ProcessBuilder(command).redirectErrorStream(true).start().waitFor() == 0;
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        return output;
    }
}
