package io.github.redislock.testsupport;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A harness step run through {@link BoundedCall} ends within its limit, whatever the call does. */
@LineIndependent
class BoundedCallTest {

    @Test
    void aCallThatEndsInTimeRunsToTheEnd() {
        AtomicBoolean ran = new AtomicBoolean();
        BoundedCall.run("setting a flag", Duration.ofSeconds(30), () -> ran.getAndSet(true));
        assertThat(ran).isTrue();
    }

    @Test
    void aCallThatNeverEndsFailsAfterTheLimitNamingWhatAndWhereItWaited() {
        CountDownLatch never = new CountDownLatch(1);
        long start = System.nanoTime();
        try {
            assertThatIllegalStateException()
                .isThrownBy(() -> BoundedCall.run("waiting for a latch nobody counts down", Duration.ofMillis(200),
                        () -> {
                            never.await();
                            return null;
                        }))
                .withMessageContaining("Gave up after PT0.2S: waiting for a latch nobody counts down did not end")
                .satisfies((ex) -> assertThat(ex.getCause().getStackTrace())
                    .anySatisfy((frame) -> assertThat(frame.getMethodName()).isEqualTo("await")));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        }
        finally {
            never.countDown();
        }
    }

    @Test
    void anUncheckedFailureOfTheCallIsThrownAsItWas() {
        IllegalArgumentException thrown = new IllegalArgumentException("bad");
        assertThatThrownBy(() -> BoundedCall.run("failing", Duration.ofSeconds(30), () -> {
            throw thrown;
        })).isSameAs(thrown);
    }

    @Test
    void aCheckedFailureOfTheCallIsTheCauseOfTheFailure() {
        IOException thrown = new IOException("gone");
        assertThatIllegalStateException().isThrownBy(() -> BoundedCall.run("reading", Duration.ofSeconds(30), () -> {
            throw thrown;
        })).withMessage("reading failed").withCause(thrown);
    }
}
