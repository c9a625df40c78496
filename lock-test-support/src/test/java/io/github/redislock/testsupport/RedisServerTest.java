package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The server itself: each test starts, stops and signals its own processes, which is what is under test. */
@LineIndependent
class RedisServerTest {

    @Test
    void startsOnLoopbackAndAnswersCommands() {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.host()).isEqualTo("127.0.0.1");
            assertThat(redis.url()).isEqualTo("redis://127.0.0.1:" + redis.port());
            assertThat(redis.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(redis.command("GET", "k")).isEqualTo("v");
            assertThat(redis.command("GET", "missing")).isNull();
            assertThat(redis.command("INCR", "n")).isEqualTo(1L);
            assertThat(redis.command("MGET", "k", "missing")).isEqualTo(java.util.Arrays.asList("v", null));
        }
    }

    @Test
    void errorRepliesAreThrown() {
        try (RedisServer redis = RedisServer.start()) {
            assertThatThrownBy(() -> redis.command("NO-SUCH-COMMAND")).isInstanceOf(RespConnection.RedisErrorReply.class)
                    .hasMessageContaining("unknown command");
        }
    }

    @Test
    void pausedServerDoesNotAnswerUntilResumed() {
        try (RedisServer redis = RedisServer.start();
                RespConnection connection = RespConnection.open(redis.host(), redis.port(), Duration.ofMillis(300))) {
            assertThat(connection.command("PING")).isEqualTo("PONG");
            redis.pause();
            assertThatThrownBy(() -> connection.command("PING")).hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
            redis.resume();
            assertThat(redis.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void killedServerRestartsEmptyOnTheSamePort() {
        try (RedisServer redis = RedisServer.start()) {
            int port = redis.port();
            redis.command("SET", "k", "v");
            long pid = redis.pid();
            redis.kill();
            assertThat(redis.isRunning()).isFalse();
            assertThat(RedisServer.isListening(port)).isFalse();
            redis.restart();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.pid()).isNotEqualTo(pid);
            assertThat(redis.command("EXISTS", "k")).isEqualTo(0L);
        }
    }

    @Test
    void stopAlsoWorksOnAPausedServer() {
        try (RedisServer redis = RedisServer.start()) {
            redis.pause();
            redis.stop();
            assertThat(redis.isRunning()).isFalse();
        }
    }

    @Test
    void severalServersRunSideBySide() {
        try (RedisServer one = RedisServer.start(); RedisServer two = RedisServer.start()) {
            assertThat(one.port()).isNotEqualTo(two.port());
            one.command("SET", "k", "one");
            assertThat(two.command("GET", "k")).isNull();
            assertThat(List.of(one.isRunning(), two.isRunning())).containsOnly(true);
        }
    }

    @Test
    void bundledFallbackBinaryRuns() throws Exception {
        // Forces the Maven-provided binary even where a redis-server is on PATH, so the fallback stays tested.
        java.nio.file.Path binary = RedisBinary.bundled();
        Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).isZero();
        assertThat(output).contains("Redis server v=");
    }
}
