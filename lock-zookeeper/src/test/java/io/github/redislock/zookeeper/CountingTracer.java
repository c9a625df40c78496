package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Counts the lock operations a Curator client sends (each traced once when it completes). */
final class CountingTracer implements TracerDriver {

    private final AtomicInteger calls;

    CountingTracer(AtomicInteger calls) {
        this.calls = calls;
    }

    /** Counts the lock operations the client sends from now on. */
    static AtomicInteger count(CuratorFramework client) {
        AtomicInteger calls = new AtomicInteger();
        client.getZookeeperClient().setTracerDriver(new CountingTracer(calls));
        return calls;
    }

    /**
     * Waits until the client has sent {@code requests} operations, checks that it sent exactly that many, and that
     * it sends nothing more for a second: a waiter parked on its watches, not polling.
     */
    static void awaitParked(AtomicInteger calls, int requests) throws InterruptedException {
        await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= requests);
        assertThat(calls).hasValue(requests);
        Thread.sleep(1_000); // not synchronisation: the span in which a polling waiter would have sent something
        assertThat(calls).hasValue(requests);
    }

    @Override
    public void addTrace(String name, long time, TimeUnit unit) {
        // Curator's ensemble tracker reads /zookeeper/config in the background (GetData); the store never reads data.
        if ((name.endsWith("-Foreground") || name.endsWith("-Background")) && !name.startsWith("GetData")) {
            this.calls.incrementAndGet();
        }
    }

    @Override
    public void addCount(String name, int increment) {
    }
}
