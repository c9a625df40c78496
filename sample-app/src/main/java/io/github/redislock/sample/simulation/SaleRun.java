package io.github.redislock.sample.simulation;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.sample.shop.SkuStatus;
import io.github.redislock.sample.shop.SkuStore;

/**
 * One simulated sale: start the instances (lock on or off), clear the sample's keys, warm up, open the sale over
 * HTTP, let the crowd in, read what Redis holds afterwards, stop the instances.
 */
final class SaleRun {

    private final SimulationSettings settings;

    private final List<String> arguments;

    private final Map<String, String> redisProperties;

    /**
     * @param arguments the user's command-line arguments, passed on to every instance
     * @param redisProperties what points the instances at the shared Redis
     */
    SaleRun(SimulationSettings settings, List<String> arguments, Map<String, String> redisProperties) {
        this.settings = settings;
        this.arguments = arguments;
        this.redisProperties = redisProperties;
    }

    /**
     * @param locked whether {@code @DistributedLock} is on
     * @param warmUpBuyers how many uncounted purchases of a sold-out SKU to send first
     */
    RunResult run(boolean locked, int warmUpBuyers) throws IOException, InterruptedException {
        Map<String, String> fixed = new LinkedHashMap<>(this.redisProperties);
        fixed.put("redis-lock.enabled", Boolean.toString(locked));
        try (AppInstances instances = AppInstances.start(this.settings.instances(), this.arguments, fixed)) {
            SkuStore store = instances.bean(SkuStore.class);
            // Only the sample's own keys: this may be someone's Redis.
            store.deleteSampleKeys();
            BuyerCrowd crowd = new BuyerCrowd(instances.baseUris(), this.settings.concurrency());
            warmUp(instances.baseUris().get(0), crowd, warmUpBuyers);
            openSale(instances.baseUris().get(0), this.settings.sku(), this.settings.items());
            CrowdResult result = crowd.buy(this.settings.sku(), this.settings.buyers());
            SkuStatus finalState = store.status(this.settings.sku())
                    .orElseThrow(() -> new IllegalStateException("The sale's keys vanished from Redis during the run"));
            return new RunResult(locked, instances.baseUris(), result, finalState);
        }
    }

    /**
     * A fresh JVM serves its first few thousand requests several times slower than later ones, until the JIT
     * compiler has caught up. Without a warm-up, whichever run came first would look slow for reasons that have
     * nothing to do with the lock. The warm-up buys from a SKU with no stock, so it sells nothing.
     */
    private void warmUp(URI instance, BuyerCrowd crowd, int buyers) throws IOException, InterruptedException {
        if (buyers == 0) {
            return;
        }
        long warmUpSku = this.settings.sku() + 1;
        openSale(instance, warmUpSku, 0);
        crowd.buy(warmUpSku, buyers);
    }

    private static void openSale(URI instance, long sku, int items) throws IOException, InterruptedException {
        URI stock = instance.resolve("/skus/" + sku + "/stock?quantity=" + items);
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(stock).PUT(HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("Could not open the sale: PUT " + stock + " answered "
                    + response.statusCode() + " " + response.body());
        }
    }
}
