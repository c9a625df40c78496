package io.github.redislock.tx;

import io.github.redislock.LockValues;
import java.time.Duration;
import java.util.UUID;

import io.github.redislock.support.BootAutoConfigurations;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.awaitility.Awaitility.await;

/**
 * Application contexts with a real database and Spring Boot's transaction auto-configuration, as an
 * application using the starter with JDBC has them; and a named in-memory H2 database that several contexts
 * in this JVM can share, as several instances of a service share one database.
 */
final class TransactionTestSupport {

    private TransactionTestSupport() {
    }

    /**
     * Boot's Redis, AOP, DataSource, JdbcTemplate and transaction auto-configuration plus ours. Each context
     * gets its own connection pool and transaction manager on the given database; Boot registers every
     * {@code TransactionExecutionListener} bean (ours included) with that transaction manager.
     */
    static ApplicationContextRunner runner(RedisServer redis, String databaseUrl) {
        return LockContexts.runner(redis)
                .withConfiguration(AutoConfigurations.of(BootAutoConfigurations.jdbcTransactions()))
                .withPropertyValues("spring.datasource.url=" + databaseUrl, "spring.datasource.username=sa",
                        "spring.datasource.password=");
    }

    /** A fresh, uniquely named in-memory H2 database that lives until {@link #drop} (or the JVM's end). */
    static String newDatabase(String name, String... ddl) {
        String url = "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        JdbcTemplate jdbc = jdbc(url);
        for (String statement : ddl) {
            jdbc.execute(statement);
        }
        return url;
    }

    /** Plain JDBC on the database, outside every application context (the test's own view of the data). */
    static JdbcTemplate jdbc(String databaseUrl) {
        return new JdbcTemplate(new DriverManagerDataSource(databaseUrl, "sa", ""));
    }

    static void drop(String databaseUrl) {
        jdbc(databaseUrl).execute("SHUTDOWN");
    }

    static boolean exists(RedisServer redis, String key) {
        return LockValues.held(redis.command("GET", key));
    }

    /** Polls Redis until the key no longer exists (expired or deleted); fails after 10 s. */
    static void awaitGone(RedisServer redis, String key) {
        await("key " + key + " to go away").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> !exists(redis, key));
    }
}
