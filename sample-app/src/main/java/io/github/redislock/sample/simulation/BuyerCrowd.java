package io.github.redislock.sample.simulation;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many buyers, each sending one real {@code POST /skus/{id}/purchase} over HTTP. A fixed pool of client threads
 * works through them, each thread bound to one instance so the load is split evenly; all threads are released
 * together by a latch, so the sale opens on a crowd rather than a trickle.
 */
public final class BuyerCrowd {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final List<URI> instances;

    private final int concurrency;

    private final HttpClient client;

    /**
     * @param instances base URIs of the app instances
     * @param concurrency how many client threads, hence requests in flight at once
     */
    public BuyerCrowd(List<URI> instances, int concurrency) {
        this.instances = List.copyOf(instances);
        this.concurrency = concurrency;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** Sends {@code buyers} purchases of {@code sku} and waits for every answer. */
    public CrowdResult buy(long sku, int buyers) throws InterruptedException {
        int[] statuses = new int[buyers];
        int[] instanceOfBuyer = new int[buyers];
        long[] latencies = new long[buyers];
        AtomicInteger nextBuyer = new AtomicInteger();
        CountDownLatch ready = new CountDownLatch(this.concurrency);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(this.concurrency);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < this.concurrency; t++) {
                int instance = t % this.instances.size();
                URI purchase = this.instances.get(instance).resolve("/skus/" + sku + "/purchase");
                workers.add(threads.submit(() -> {
                    ready.countDown();
                    go.await();
                    for (int buyer = nextBuyer.getAndIncrement(); buyer < buyers; buyer = nextBuyer.getAndIncrement()) {
                        long start = System.nanoTime();
                        statuses[buyer] = send(purchase);
                        latencies[buyer] = System.nanoTime() - start;
                        instanceOfBuyer[buyer] = instance;
                    }
                    return null;
                }));
            }
            ready.await();
            long start = System.nanoTime();
            go.countDown();
            for (Future<?> worker : workers) {
                worker.get();
            }
            // Future.get() orders every worker's array writes before the reads below.
            return new CrowdResult(statuses, instanceOfBuyer, latencies, System.nanoTime() - start);
        }
        catch (ExecutionException ex) {
            throw new IllegalStateException("A buyer thread failed", ex.getCause());
        }
        finally {
            threads.shutdownNow();
        }
    }

    /** The response status, or 0 when there was no response. */
    private int send(URI purchase) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(purchase)
                .POST(HttpRequest.BodyPublishers.noBody())
                .timeout(REQUEST_TIMEOUT)
                .build();
        try {
            return this.client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        }
        catch (IOException ex) {
            return 0;
        }
    }
}
