package io.github.redislock.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader, a writer and a later reader of one key, each of its own application, and the order in which they get
 * in, written down here rather than asked of the lock: a reader holds; the writer arrives and waits; the late reader
 * arrives while the writer waits and, though readers hold the key, must wait behind it. A store that lets readers
 * pass a waiting writer lets the late reader in first.
 */
public final class ArrivalOrder {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private ArrivalOrder() {
    }

    /**
     * Runs the scenario and checks the order: writer in, writer out, late reader in. For a store where the first
     * reader holds wherever the writer looks once its acquire returned.
     * @param writerWaits returns once the writer waits where the store keeps its waiters
     * @param lateReaderWaits returns once the late reader waits too
     */
    public static void readerBehindAWaitingWriter(String key, LockEngine first, LockEngine writing, LockEngine late,
            Runnable writerWaits, Runnable lateReaderWaits) throws Exception {
        readerBehindAWaitingWriter(key, first, writing, late, () -> {
        }, writerWaits, lateReaderWaits);
    }

    /**
     * Runs the scenario and checks the order: writer in, writer out, late reader in.
     * @param readerHolds returns once the first reader holds wherever the writer will look: on Redlock every node, as
     * its acquire returns once a majority has it, and a node whose call is still on its way may see the writer's
     * attempt first (the writer then takes that node and lets go of it at every attempt, and never queues there)
     * @param writerWaits returns once the writer waits where the store keeps its waiters
     * @param lateReaderWaits returns once the late reader waits too
     */
    public static void readerBehindAWaitingWriter(String key, LockEngine first, LockEngine writing, LockEngine late,
            Runnable readerHolds, Runnable writerWaits, Runnable lateReaderWaits) throws Exception {
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        LockRequest read = LockRequest.of(key, WAIT, null).mode(LockMode.READ);
        LockHandle reader = first.acquire(read);
        readerHolds.run();
        // A thread each, not the common pool: both block until the first reader leaves, and the common pool of a
        // 2-core machine has one thread, behind which JDK 25's CompletableFuture queued the late reader (it never
        // waited, and the test waited for it in vain).
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try (LockHandle lock = writing.acquire(LockRequest.of(key, WAIT, null))) {
                    order.add("writer in");
                    order.add("writer out");
                }
            }, threads);
            writerWaits.run();
            CompletableFuture<Void> lateReader = CompletableFuture.runAsync(() -> {
                try (LockHandle lock = late.acquire(read)) {
                    order.add("late reader in");
                }
            }, threads);
            lateReaderWaits.run();
            assertThat(order).as("nobody got in beside the first reader").isEmpty();
            reader.close();
            writer.get(20, TimeUnit.SECONDS);
            lateReader.get(20, TimeUnit.SECONDS);
        }
        finally {
            threads.shutdownNow();
        }
        assertThat(List.copyOf(order)).containsExactly("writer in", "writer out", "late reader in");
    }
}
