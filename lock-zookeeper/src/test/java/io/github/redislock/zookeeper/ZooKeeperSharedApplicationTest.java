package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockMode;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.engine.LockStore;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.ZooKeeperServerExtension;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Whole applications on ZooKeeper with {@code @DistributedLock(permits = N)} and {@code mode = READ}: the start-up
 * accepts them (the store keeps shared keys), and what the methods see is judged by the test's own counters and
 * barriers, shared by the two applications of this JVM, never by the library.
 */
class ZooKeeperSharedApplicationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void closeApplications() {
        this.contexts.forEach(ConfigurableApplicationContext::close);
    }

    private Calls application() {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties("redis-lock.zookeeper.connect-string=" + zookeeper.server().connectString(),
                    "redis-lock.zookeeper.session-timeout=30s", "redis-lock.zookeeper.connection-timeout=2s")
            .run();
        this.contexts.add(context);
        return context.getBean(Calls.class);
    }

    /**
     * Three callers, two in one application and one in the other, of a method of two permits: each stays inside
     * until the test lets them go. Two get in, the third waits in the store (nobody else is inside with them), and
     * once they are let go the third gets in: the count of callers inside reached two and never passed it.
     */
    @Test
    void aMethodOfTwoPermitsRunsTwoCallersAtOnceAcrossApplicationsAndNeverThree() throws Exception {
        List<Calls> applications = List.of(application(), application());
        Inside inside = new Inside();
        List<CompletableFuture<Void>> callers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Calls calls = applications.get(i % 2);
            callers.add(CompletableFuture.runAsync(() -> calls.partner(inside), TaskThreads.own()));
        }
        await().atMost(WAIT).until(() -> inside.now.get() == 2 && waiting("partner:api") == 1);
        inside.gate.countDown();
        for (CompletableFuture<Void> caller : callers) {
            caller.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(inside.most).hasValue(2);
    }

    /**
     * Readers of two applications are inside a READ method together; a writer of the first application, called
     * while they are, waits in the store for both to leave and finds nobody inside.
     */
    @Test
    void readersOfTwoApplicationsShareAMethodAndAWriterWaitsForThem() throws Exception {
        List<Calls> applications = List.of(application(), application());
        Inside readers = new Inside();
        List<CompletableFuture<Void>> reading = new ArrayList<>();
        for (Calls calls : applications) {
            reading.add(CompletableFuture.runAsync(() -> calls.read(readers), TaskThreads.own()));
        }
        await().atMost(WAIT).until(() -> readers.now.get() == 2);
        AtomicInteger readersBesideTheWriter = new AtomicInteger(-1);
        CompletableFuture<Void> writing = CompletableFuture
            .runAsync(() -> applications.get(0).write(() -> readersBesideTheWriter.set(readers.now.get())), TaskThreads.own());
        await().atMost(WAIT).until(() -> waiting("doc") == 1);
        readers.gate.countDown();
        writing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        for (CompletableFuture<Void> reader : reading) {
            reader.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(readersBesideTheWriter).hasValue(0);
    }

    /** How many threads of every application wait in the store for the name's key now. */
    private int waiting(String name) {
        return this.contexts.stream().map((context) -> context.getBean(LockStore.class))
            .mapToInt((store) -> store.waiting().getOrDefault(store.key(name), 0))
            .sum();
    }

    /** Counts the callers inside a method, each of which stays until the gate opens. */
    static final class Inside {

        final AtomicInteger now = new AtomicInteger();

        final AtomicInteger most = new AtomicInteger();

        final CountDownLatch gate = new CountDownLatch(1);

        void stay() {
            this.most.accumulateAndGet(this.now.incrementAndGet(), Math::max);
            try {
                assertThat(this.gate.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the gate opened").isTrue();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                this.now.decrementAndGet();
            }
        }
    }

    public static class Calls {

        @DistributedLock(key = "partner:api", permits = 2, waitTime = "30s")
        public void partner(Inside inside) {
            inside.stay();
        }

        @DistributedLock(key = "doc", mode = LockMode.READ, waitTime = "30s")
        public void read(Inside readers) {
            readers.stay();
        }

        @DistributedLock(key = "doc", waitTime = "30s")
        public void write(Runnable work) {
            work.run();
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        Calls calls() {
            return new Calls();
        }
    }
}
