package io.github.redislock.aop;

import java.io.IOException;
import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockException;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A method that throws while Redis stops answering: its own exception is what the caller gets, and the failed
 * release travels with it as a suppressed exception, never silently dropped.
 */
class FailedReleaseTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Test
    void aReleaseThatFailsAfterTheMethodThrewIsAttachedToTheMethodsException() {
        LockContexts.runner(redis).withUserConfiguration(Config.class)
            .withPropertyValues("spring.data.redis.timeout=2s")
            .run((context) -> {
                Worker worker = context.getBean(Worker.class);
                // Connect first, so that the release is the first command the frozen Redis leaves unanswered.
                context.getBean(DistributedLockTemplate.class).run("warm-up", Duration.ofSeconds(5), null, () -> {
                });
                try {
                    assertThatThrownBy(worker::freezeRedisAndFail).isInstanceOf(IOException.class)
                        .hasMessage("disk full")
                        .satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement()
                            .isInstanceOf(LockException.class)
                            .satisfies((suppressed) -> assertThat(suppressed.getMessage())
                                .contains("releasing lock 'job'", "it expires when its lease ends")));
                }
                finally {
                    redis.server().resume();
                }
            });
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Worker worker() {
            return new Worker();
        }
    }

    static class Worker {

        @DistributedLock(key = "job", leaseTime = "5s")
        public void freezeRedisAndFail() throws IOException {
            redis.server().pause();
            throw new IOException("disk full");
        }
    }
}
