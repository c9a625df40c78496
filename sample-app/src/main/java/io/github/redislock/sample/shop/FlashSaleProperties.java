package io.github.redislock.sample.shop;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the sale itself, under {@code flash-sale.*}. The lock's wait time ({@code flash-sale.lock-wait-time})
 * is not here: it is read by the {@code @DistributedLock} annotation through a {@code ${...}} placeholder.
 *
 * @param processingTime the simulated work done between reading and writing the stock (see {@link SimulatedWork})
 * @param instanceName names this instance in the orders it creates, to show that buyers were served by several
 */
@ConfigurationProperties("flash-sale")
public record FlashSaleProperties(@DefaultValue("5ms") Duration processingTime,
        @DefaultValue("flash-sale") String instanceName) {
}
