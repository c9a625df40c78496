package io.github.redislock.sample.shop;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;

/**
 * Stands in for what a real shop does between checking the stock and taking an item out of it: charging the
 * card, a fraud check, a call to the warehouse. It is what makes the race window wide enough to see: the longer
 * a purchase works on a stock value it read, the more buyers read the same value meanwhile.
 * <p>
 * The pause is a sleep because it simulates work; it synchronises nothing.
 */
@Component
public class SimulatedWork {

    private final Duration duration;

    public SimulatedWork(FlashSaleProperties properties) {
        this.duration = properties.processingTime();
    }

    /** Takes {@code flash-sale.processing-time}. */
    public void perform() {
        if (this.duration.isZero() || this.duration.isNegative()) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(this.duration.toNanos());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while processing a purchase", ex);
        }
    }
}
