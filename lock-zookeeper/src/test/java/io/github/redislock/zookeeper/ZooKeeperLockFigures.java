package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;

/**
 * Figures, not a test: our ZooKeeper store under the engine against Curator's {@code InterProcessMutex} used
 * directly, on the same ZooKeeper server in the same run, alternating rounds. Uncontended: one thread, a new key per
 * cycle group. Hot key: 2 clients (sessions) × 4 threads on one key. Run:
 * {@code java -cp <test class path> io.github.redislock.zookeeper.ZooKeeperLockFigures [seconds per round] [rounds]}.
 */
public final class ZooKeeperLockFigures {

    private ZooKeeperLockFigures() {
    }

    interface Locker {

        AutoCloseable lock(String key) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        long seconds = (args.length > 0) ? Long.parseLong(args[0]) : 5;
        int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 3;
        try (ZooKeeperServer server = new ZooKeeperServer()) {
            List<CuratorFramework> clients = List.of(server.client(30_000), server.client(30_000));
            List<LockEngine> engines = new ArrayList<>();
            for (CuratorFramework client : clients) {
                engines.add(new LockEngine(new ZooKeeperLockStore(client, "/ours", Duration.ofSeconds(5)),
                        Duration.ofSeconds(30), (key, token, fence, how) -> {
                        }));
            }
            List<Locker> ours = engines.stream().<Locker>map((engine) -> (key) -> {
                LockHandle handle = engine.acquire(LockRequest.of(key, Duration.ofSeconds(60), null));
                return handle;
            }).toList();
            List<Locker> curator = clients.stream().<Locker>map((client) -> (key) -> {
                // A new InterProcessMutex per acquisition: no ZooKeeper call, and no reentrancy to skew the figure.
                InterProcessMutex mutex = new InterProcessMutex(client, "/curator/" + key);
                mutex.acquire();
                return mutex::release;
            }).toList();
            for (int round = 1; round <= rounds; round++) {
                report("ours", "uncontended", round, run(List.of(ours.get(0)), 1, seconds));
                report("curator", "uncontended", round, run(List.of(curator.get(0)), 1, seconds));
                report("ours", "hot key 2x4", round, run(ours, 4, seconds));
                report("curator", "hot key 2x4", round, run(curator, 4, seconds));
            }
            for (LockEngine engine : engines) {
                engine.close();
            }
            clients.forEach(CuratorFramework::close);
        }
    }

    private static void report(String who, String what, int round, double perSecond) {
        System.out.println(String.format(Locale.ROOT, "round %d  %-12s %-8s %9.0f /s", round, what, who, perSecond));
    }

    /** Acquisitions per second: every locker × threads, on one key, for the given time. */
    private static double run(List<Locker> lockers, int threads, long seconds) throws Exception {
        int all = lockers.size() * threads;
        ExecutorService pool = Executors.newFixedThreadPool(all);
        CyclicBarrier start = new CyclicBarrier(all + 1);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong count = new AtomicLong();
        String key = "k" + System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (Locker locker : lockers) {
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    while (!stop.get()) {
                        try (AutoCloseable lock = locker.lock(key)) {
                            count.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
        }
        start.await();
        long began = System.nanoTime();
        TimeUnit.SECONDS.sleep(seconds);
        stop.set(true);
        for (Future<?> future : done) {
            future.get(60, TimeUnit.SECONDS);
        }
        long elapsed = System.nanoTime() - began;
        pool.shutdown();
        return count.get() * 1e9 / elapsed;
    }
}
