package io.github.redislock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two registries, each over an engine of its own (two applications), with four threads each, run 25 sections
 * apiece through {@code executeLocked} on one key, on each store. The witness is the test's own: a count of
 * threads inside (never above one) and a plain counter read, paused over and written back inside each section,
 * which loses increments as soon as two sections overlap.
 */
@ParameterizedClass
@EnumSource(RegistryStore.class)
class TwoRegistriesExcludeEachOtherTest {

    private static final int THREADS = 4;

    private static final int SECTIONS = 25;

    @RegisterExtension
    static final RegistryServers servers = new RegistryServers();

    @Parameter
    RegistryStore store;

    private final List<AutoCloseable> opened = new ArrayList<>();

    private final AtomicInteger inside = new AtomicInteger();

    private final AtomicInteger crowded = new AtomicInteger();

    private int counter;

    @AfterEach
    void close() throws Exception {
        for (int i = this.opened.size() - 1; i >= 0; i--) {
            this.opened.get(i).close();
        }
    }

    @Test
    void noTwoSectionsOverlapAcrossRegistriesAndThreads() throws Exception {
        List<DistributedLockRegistry> registries = List.of(registry(), registry());
        ExecutorService threads = Executors.newFixedThreadPool(THREADS * registries.size());
        try {
            List<Callable<Void>> tasks = new ArrayList<>();
            for (DistributedLockRegistry registry : registries) {
                for (int t = 0; t < THREADS; t++) {
                    tasks.add(() -> {
                        for (int i = 0; i < SECTIONS; i++) {
                            registry.executeLocked("counter", this::section);
                        }
                        return null;
                    });
                }
            }
            for (Future<Void> done : threads.invokeAll(tasks, 3, TimeUnit.MINUTES)) {
                done.get();
            }
        }
        finally {
            threads.shutdownNow();
        }
        assertThat(this.crowded.get()).as("sections entered while another was inside").isZero();
        assertThat(this.counter).isEqualTo(registries.size() * THREADS * SECTIONS);
    }

    private void section() throws InterruptedException {
        if (this.inside.incrementAndGet() > 1) {
            this.crowded.incrementAndGet();
        }
        int read = this.counter;
        // Time for another section to step in, were the lock not to keep it out (work, not a synchronisation).
        Thread.sleep(1);
        this.counter = read + 1;
        this.inside.decrementAndGet();
    }

    private DistributedLockRegistry registry() {
        LockEngine engine = this.store.engine(servers, LockLossListener.NONE, this.opened);
        this.opened.add(engine);
        DistributedLockRegistry registry = new DistributedLockRegistry(engine, Duration.ofSeconds(30));
        this.opened.add(registry::destroy);
        return registry;
    }
}
