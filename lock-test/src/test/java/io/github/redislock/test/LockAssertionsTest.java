package io.github.redislock.test;

import java.time.Duration;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.test.LockAssertions.assertThatLock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockAssertionsTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    private LettuceConnectionFactory connectionFactory;

    private RedisLockClient locks;

    @BeforeEach
    void connect() {
        this.connectionFactory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()));
        this.connectionFactory.afterPropertiesSet();
        this.connectionFactory.start();
        this.locks = new RedisLockClient(this.connectionFactory, "assert:");
        redis.server().flushAll();
    }

    @AfterEach
    void disconnect() {
        this.locks.close();
        this.connectionFactory.destroy();
    }

    @Test
    void aKeyTheEngineHoldsIsHeldAndFreeAfterTheRelease() {
        try (LockHandle handle = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null))) {
            assertThatLock(this.connectionFactory, "assert:sku:1").isHeld();
            assertThatThrownBy(() -> assertThatLock(this.connectionFactory, "assert:sku:1").isFree())
                    .isInstanceOf(AssertionError.class).hasMessageContaining("assert:sku:1")
                    .hasMessageContaining(handle.token());
        }
        assertThatLock(this.connectionFactory, "assert:sku:1").isFree();
        assertThatThrownBy(() -> assertThatLock(this.connectionFactory, "assert:sku:1").isHeld())
                .isInstanceOf(AssertionError.class).hasMessageContaining("it is free");
    }

    @Test
    void aKeyKeptForHoldAtLeastIsKeptAndHeldAndTheRecorderCountsItsHandleReleased() {
        LockRecorder recorder = new LockRecorder();
        recorder.recording(this.locks)
                .acquire(LockRequest.of("job", Duration.ZERO, null).holdAtLeast(Duration.ofSeconds(30))).close();
        assertThatLock(this.connectionFactory, "assert:job").isKept().isHeld();
        assertThatThrownBy(() -> assertThatLock(this.connectionFactory, "assert:job").isFree())
                .isInstanceOf(AssertionError.class).hasMessageContaining("kept after its work ended");
        LockAssertions.assertThat(recorder).ranUnder("job").holdsNothing();
        try (LockHandle handle = this.locks.acquire(LockRequest.of("sku:4", Duration.ZERO, null))) {
            assertThatThrownBy(() -> assertThatLock(this.connectionFactory, "assert:sku:4").isKept())
                    .isInstanceOf(AssertionError.class).hasMessageContaining(handle.token());
        }
    }

    @Test
    void aReleaseMarkerOfVersionZeroPointOneIsFreeAndAnyOtherValueHeld() {
        redis.server().command("SET", "assert:old", "~:17");
        assertThatLock(this.connectionFactory, "assert:old").isFree();
        redis.server().command("SET", "assert:other", "someone-else");
        assertThatLock(this.connectionFactory, "assert:other").isHeld();
    }

    @Test
    void recordedLocksAssertionsSayWhatWasTaken() {
        LockRecorder recorder = new LockRecorder();
        LockHandle handle = recorder.recording(this.locks).acquire(LockRequest.of("sku:2", Duration.ZERO, null));
        assertThatThrownBy(() -> LockAssertions.assertThat(recorder).holdsNothing())
                .isInstanceOf(AssertionError.class).hasMessageContaining("sku:2");
        handle.close();
        LockAssertions.assertThat(recorder).ranUnder("sku:2").tookExactly("sku:2").holdsNothing();
        assertThatThrownBy(() -> LockAssertions.assertThat(recorder).ranUnder("sku:3"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("[[sku:2]]");
        assertThat(recorder.locks()).singleElement().satisfies((lock) -> {
            assertThat(lock.key()).isEqualTo("assert:sku:2");
            assertThat(lock.threadName()).isEqualTo(Thread.currentThread().getName());
        });
        recorder.clear();
        LockAssertions.assertThat(recorder).tookNone();
    }
}
