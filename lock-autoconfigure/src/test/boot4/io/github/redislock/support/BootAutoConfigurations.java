package io.github.redislock.support;

import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;

/**
 * Spring Boot's auto-configuration classes that the tests start, as named in Boot 4.x (src/test/boot3 has the Boot 3.5 names; the build adds the
 * directory of the Boot line it builds against).
 */
public final class BootAutoConfigurations {

    private BootAutoConfigurations() {
    }

    /** Boot's Redis connection. */
    public static Class<?> redis() {
        return DataRedisAutoConfiguration.class;
    }

    /** A DataSource, a JdbcTemplate and the transaction manager on it. */
    public static Class<?>[] jdbcTransactions() {
        return new Class<?>[] { DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                JdbcTemplateAutoConfiguration.class, TransactionManagerCustomizationAutoConfiguration.class,
                TransactionAutoConfiguration.class };
    }
}
