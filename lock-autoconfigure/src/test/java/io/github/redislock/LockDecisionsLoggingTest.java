package io.github.redislock;

import java.time.Duration;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** The troubleshooting lines users switch on with the category {@code io.github.redislock} at DEBUG. */
@ExtendWith(OutputCaptureExtension.class)
class LockDecisionsLoggingTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private final Logger category = (Logger) LoggerFactory.getLogger("io.github.redislock");

    private Level before;

    @BeforeEach
    void rememberLevel() {
        this.before = this.category.getLevel();
    }

    @AfterEach
    void restoreLevel() {
        this.category.setLevel(this.before);
    }

    @Test
    void atDebugEveryDecisionIsLogged(CapturedOutput output) {
        LockContexts.runner(redis).withPropertyValues("redis-lock.key-prefix=t:").run((context) -> {
            this.category.setLevel(Level.DEBUG);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            template.run("job", Duration.ZERO, null, () -> {
            });
            redis.command("SET", "t:job", "other:1", "PX", "30000");
            assertThat(template.tryAcquire("job", Duration.ofMillis(50), Duration.ofSeconds(5))).isEmpty();
        });
        assertThat(output).contains("Lock [job]: acquiring, single attempt, lease renewed")
            .containsPattern("Lock \\[job\\]: acquired after \\d+ ms, fencing token \\d+")
            .contains("Lock 't:job': released")
            .contains("Lock [job]: acquiring, waiting up to PT0.05S, lease PT5S fixed")
            .containsPattern("Lock \\[job\\]: not acquired, held elsewhere for the whole wait time \\(\\d+ ms\\)");
    }

    @Test
    void atInfoNothingIsLogged(CapturedOutput output) {
        LockContexts.runner(redis).run((context) -> {
            this.category.setLevel(Level.INFO);
            context.getBean(DistributedLockTemplate.class).run("job", Duration.ZERO, null, () -> {
            });
        });
        assertThat(output).doesNotContain("Lock [job]").doesNotContain("'job'");
    }
}
