package io.github.redislock.docs;

import java.util.UUID;

import io.github.redislock.LockContext;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.support.BootAutoConfigurations;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fencing sample of {@code docs/semantics-and-guarantees.md}: {@link ConfigService#save} is the page's code,
 * run here on a real Redis and an H2 database. Each save writes the lock's fencing token with the value, and a
 * save whose token is not above the stored one (a holder that woke up after a newer one wrote; simulated by a
 * stored token from the far future) changes nothing and throws. {@code FencedStoreExampleTest} runs the paused
 * holder itself.
 */
class FencingSnippetTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    @Test
    void eachSaveStoresItsFencingTokenAndAStaleTokenIsRefused() {
        String database = "jdbc:h2:mem:fencing-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;NON_KEYWORDS=VALUE";
        LockContexts.runner(redis)
                .withConfiguration(AutoConfigurations.of(BootAutoConfigurations.jdbcTransactions()))
                .withPropertyValues("spring.datasource.url=" + database, "spring.datasource.username=sa",
                        "spring.datasource.password=")
                .withBean(ConfigService.class)
                .run((context) -> {
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    jdbc.execute("CREATE TABLE config (name VARCHAR(64) PRIMARY KEY, value VARCHAR(64), fence BIGINT)");
                    jdbc.update("INSERT INTO config VALUES ('mode', 'initial', 0)");
                    ConfigService service = context.getBean(ConfigService.class);

                    service.save("mode", "first");
                    long firstFence = fence(jdbc);
                    service.save("mode", "second");

                    assertThat(firstFence).isPositive();
                    assertThat(fence(jdbc)).isGreaterThan(firstFence);
                    assertThat(value(jdbc)).isEqualTo("second");

                    jdbc.update("UPDATE config SET fence = ? WHERE name = 'mode'", Long.MAX_VALUE);
                    assertThatThrownBy(() -> service.save("mode", "stale")).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("stale writer");
                    assertThat(value(jdbc)).isEqualTo("second");
                    jdbc.execute("SHUTDOWN");
                });
    }

    private static long fence(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT fence FROM config WHERE name = 'mode'", Long.class);
    }

    private static String value(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT value FROM config WHERE name = 'mode'", String.class);
    }

    /** The page's service: a configuration table whose rows carry the fencing token of their last write. */
    static class ConfigService {

        private final JdbcTemplate jdbc;

        ConfigService(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DistributedLock(key = "config:#name")
        public void save(String name, String value) {
            long fence = LockContext.current().orElseThrow().fencingToken();
            int updated = jdbc.update(
                "UPDATE config SET value = ?, fence = ? WHERE name = ? AND fence < ?", value, fence, name, fence);
            if (updated == 0) throw new IllegalStateException("stale writer: a newer lock holder already wrote");
        }
    }
}
