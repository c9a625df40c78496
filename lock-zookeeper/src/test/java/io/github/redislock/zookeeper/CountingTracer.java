package io.github.redislock.zookeeper;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.drivers.TracerDriver;

/** Counts the lock operations a Curator client sends (each traced once when it completes). */
final class CountingTracer implements TracerDriver {

    private final AtomicInteger calls;

    CountingTracer(AtomicInteger calls) {
        this.calls = calls;
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
