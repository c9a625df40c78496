package io.github.redislock.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The workers' namespaces leave nothing behind: closing removes them, and a run that was killed has its leftovers
 * removed by the next one.
 */
class NetworkLabTest {

    @BeforeEach
    void needsNamespaces() {
        assumeTrue(NetworkLab.unavailable().isEmpty(), () -> "skipped: " + NetworkLab.unavailable().orElseThrow());
    }

    @Test
    void closeRemovesNamespacesVethsAndTable() throws Exception {
        String own = "rlt" + ProcessHandle.current().pid() + "w";
        try (NetworkLab lab = NetworkLab.open(2)) {
            assertThat(lab.hostAddress(1)).endsWith(".5");
            assertThat(lab.hostAddress(2)).endsWith(".9");
            assertThat(run("ip", "netns", "list")).contains(own + "1", own + "2");
            assertThat(run("ip", "-o", "link", "show")).contains(own + "1h", own + "2h");
        }
        assertThat(run("ip", "netns", "list")).doesNotContain(own);
        assertThat(run("ip", "-o", "link", "show")).doesNotContain(own);
        assertThat(run("nft", "list", "tables")).doesNotContain("rlt" + ProcessHandle.current().pid());
    }

    @Test
    void openRemovesWhatAKilledRunLeft() throws Exception {
        long dead = 4_000_000;
        while (ProcessHandle.of(dead).isPresent()) {
            dead--;
        }
        String stale = "rlt" + dead + "w1";
        run("ip", "netns", "add", stale);
        run("ip", "link", "add", stale + "h", "type", "veth", "peer", "name", stale + "n", "netns", stale);
        run("nft", "add", "table", "ip", "rlt" + dead);

        NetworkLab.open(1).close();

        assertThat(run("ip", "netns", "list")).doesNotContain(stale);
        assertThat(run("ip", "-o", "link", "show")).doesNotContain(stale);
        assertThat(run("nft", "list", "tables")).doesNotContain("rlt" + dead);
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        return output;
    }
}
