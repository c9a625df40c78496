package io.github.redislock.support;

import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionManagerCustomizationAutoConfiguration;

/**
 * Spring Boot's auto-configuration classes that the tests start, as named in Boot 3.5 (src/test/boot4 has the Boot 4.x names; the build adds the
 * directory of the Boot line it builds against).
 */
public final class BootAutoConfigurations {

    private BootAutoConfigurations() {
    }

    /** Boot's Redis connection. */
    public static Class<?> redis() {
        return RedisAutoConfiguration.class;
    }

    /** A DataSource, a JdbcTemplate and the transaction manager on it. */
    public static Class<?>[] jdbcTransactions() {
        return new Class<?>[] { DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                JdbcTemplateAutoConfiguration.class, TransactionManagerCustomizationAutoConfiguration.class,
                TransactionAutoConfiguration.class };
    }
}
