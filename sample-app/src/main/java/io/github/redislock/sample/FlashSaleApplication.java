package io.github.redislock.sample;

import io.github.redislock.sample.simulation.FlashSaleSimulation;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A flash sale: a few items of one SKU, many buyers, several instances of this app behind them. Buying goes
 * through {@code @DistributedLock}, so the stock can never be sold twice, whichever instance a buyer hits.
 * <p>
 * {@code java -jar redis-lock-sample-app.jar} serves the HTTP API; add {@code --simulate} to run the built-in
 * load test instead, which shows the same sale with and without the lock and exits.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class FlashSaleApplication {

    public static void main(String[] args) {
        if (FlashSaleSimulation.isRequested(args)) {
            System.exit(FlashSaleSimulation.run(args));
        }
        SpringApplication.run(FlashSaleApplication.class, args);
    }
}
