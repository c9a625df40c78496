package io.github.redislock.benchmarks.uncontended;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.RedissonClients;
import io.github.redislock.testsupport.RedisServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's locks over several masters, on the same five as {@link RedlockBenchmark} (the benchmark Redis and four
 * more), one Redisson client per master: {@code RedissonMultiLock} (every master) and {@code RedissonRedLock} (a
 * majority), each {@code tryLock(0, -1, SECONDS)} (the watchdog, as our renewed lease) + {@code unlock()}. The
 * table's Redis figures are the benchmark Redis's, one node's share.
 */
@State(Scope.Benchmark)
public class RedissonMultiMasterBenchmark {

    private final List<RedisServer> nodes = new ArrayList<>();

    private final List<RedissonClient> clients = new ArrayList<>();

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        this.clients.add(RedissonClients.create(BenchRedis.url()));
        for (int i = 0; i < 4; i++) {
            RedisServer node = RedisServer.start();
            this.nodes.add(node);
            this.clients.add(RedissonClients.create(node.url()));
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.clients.forEach(RedissonClient::shutdown);
        this.clients.clear();
        this.nodes.forEach(RedisServer::close);
        this.nodes.clear();
    }

    @Benchmark
    public boolean multiLock() throws InterruptedException {
        return cycle(new RedissonMultiLock(locks(RandomKeys.nextKey())));
    }

    @Benchmark
    @SuppressWarnings("deprecation")
    public boolean redLock() throws InterruptedException {
        return cycle(new RedissonRedLock(locks(RandomKeys.nextKey())));
    }

    private RLock[] locks(String key) {
        RLock[] locks = new RLock[this.clients.size()];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = this.clients.get(i).getLock(key);
        }
        return locks;
    }

    private static boolean cycle(RLock lock) throws InterruptedException {
        if (!lock.tryLock(0, -1, TimeUnit.SECONDS)) {
            return false;
        }
        lock.unlock();
        return true;
    }
}
