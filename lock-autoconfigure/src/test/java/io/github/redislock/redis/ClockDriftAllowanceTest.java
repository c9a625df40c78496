package io.github.redislock.redis;

import java.time.Duration;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How long a single-Redis lock counts as held by this JVM's clock: the lease less the clock drift allowance and
 * 2 ms, so that a holder cut off from Redis stops saying "held" before Redis, on a clock that may run faster, lets
 * another take the key (found by the torture suite's clock-drift scenario, where without it the slow holder said
 * "held" after another had entered).
 */
class ClockDriftAllowanceTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    private RedisConnectionFactory factory;

    private RedisLockStore store;

    @BeforeEach
    void store() {
        this.factory = TestConnections.lettuce(redis.server(), Duration.ofSeconds(2));
        this.store = new RedisLockStore(this.factory, "drift:", null, 0, Duration.ZERO);
    }

    @AfterEach
    void close() {
        this.store.close();
        TestConnections.destroy(this.factory);
    }

    @Test
    void byDefaultALockCountsAsHeldForTheLeaseLessOnePercentAndTwoMilliseconds() {
        assertThat(this.store.validNanos(3000)).isEqualTo(Duration.ofMillis(3000 - 30 - 2).toNanos());
    }

    @Test
    void aLargerAllowanceShortensItByThatShare() {
        this.store.setClockDrift(0.1);

        assertThat(this.store.validNanos(3000)).isEqualTo(Duration.ofMillis(3000 - 300 - 2).toNanos());
    }

    @Test
    void anAllowanceOfHalfTheLeaseIsRefusedNamingTheRange() {
        assertThatThrownBy(() -> this.store.setClockDrift(0.5)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("The clock drift allowance is a share of the lease, at least 0 and below 0.5 (e.g. 0.01 for "
                    + "1 %), not 0.5");
    }
}
