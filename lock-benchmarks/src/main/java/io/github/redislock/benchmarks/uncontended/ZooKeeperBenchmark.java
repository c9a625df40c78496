package io.github.redislock.benchmarks.uncontended;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.benchmarks.BenchZooKeeper;
import io.github.redislock.benchmarks.clients.SpringContexts;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * One uncontended lock cycle (acquire without waiting, empty body, release) on the benchmark ZooKeeper: ours (the
 * template on the ZooKeeper store, in its own Spring Boot context), Curator's {@code InterProcessMutex} used
 * directly (a new one per key, which costs no ZooKeeper call, so no reentrancy skews it) and Spring Integration's
 * {@code ZookeeperLockRegistry}. Each has its own client and session and its own base path. Every cycle is
 * three ZooKeeper round trips for all three: create the node, read the line, delete the node.
 */
@State(Scope.Benchmark)
public class ZooKeeperBenchmark {

    private static final Supplier<Boolean> EMPTY_BODY = () -> Boolean.TRUE;

    private ConfigurableApplicationContext ours;

    private DistributedLockTemplate template;

    private CuratorFramework curator;

    private CuratorFramework integrationClient;

    private ZookeeperLockRegistry integration;

    @Setup(Level.Trial)
    public void start() {
        String connect = BenchZooKeeper.connectString();
        this.ours = SpringContexts.withZooKeeperLock(connect);
        this.template = this.ours.getBean(DistributedLockTemplate.class);
        this.curator = BenchZooKeeper.client(connect);
        this.integrationClient = BenchZooKeeper.client(connect);
        this.integration = new ZookeeperLockRegistry(this.integrationClient, "/si-locks");
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        this.ours.close();
        this.curator.close();
        this.integration.destroy();
        this.integrationClient.close();
    }

    @Benchmark
    public Boolean ours() {
        try {
            return this.template.execute(RandomKeys.nextKey(), Duration.ZERO, null, EMPTY_BODY);
        }
        catch (LockNotAcquiredException ex) {
            return Boolean.FALSE;
        }
    }

    @Benchmark
    public boolean curatorMutex() throws Exception {
        InterProcessMutex mutex = new InterProcessMutex(this.curator, "/curator-locks/" + RandomKeys.nextKey());
        if (!mutex.acquire(0, TimeUnit.MILLISECONDS)) {
            return false;
        }
        mutex.release();
        return true;
    }

    @Benchmark
    public boolean integrationRegistry() {
        Lock lock = this.integration.obtain(RandomKeys.nextKey());
        if (!lock.tryLock()) {
            return false;
        }
        lock.unlock();
        return true;
    }
}
