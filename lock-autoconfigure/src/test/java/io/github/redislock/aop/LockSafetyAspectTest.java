package io.github.redislock.aop;

import io.github.redislock.LockValues;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/** Reentrancy, LockContext, lease-loss policy and multi-key ordering through the annotation. */
class LockSafetyAspectTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private ApplicationContextRunner runner() {
        return LockContexts.runner(redis).withUserConfiguration(Config.class);
    }

    @Test
    void nestedCallOnTheSameKeyReentersAndReleasesAtTheOutermostExit() {
        runner().run((context) -> {
            Outer outer = context.getBean(Outer.class);
            List<String> seen = outer.outer(42L);
            // outer token, inner token, key still present after inner returned
            assertThat(seen.get(0)).isNotNull().isEqualTo(seen.get(1)).isEqualTo(seen.get(2));
            assertThat(seen.get(3)).as("fencing tokens: inner shares the outer acquisition").isEqualTo(seen.get(4));
            assertThat(LockValues.held(redis.command("GET", "sku:42:lock"))).isFalse();
        });
    }

    @Test
    void reentrancyNeverLetsAnotherThreadIn() {
        runner().run((context) -> {
            Outer outer = context.getBean(Outer.class);
            Inner inner = context.getBean(Inner.class);
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> outer.holdUntil(7L, inside, done),
                    (task) -> new Thread(task).start());
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> inner.inner(7L)).isInstanceOf(LockNotAcquiredException.class);
            done.countDown();
            holder.get(10, TimeUnit.SECONDS);
        });
    }

    @Test
    void reentrancyWorksOnVirtualThreads() throws Exception {
        assumeThat(Runtime.version().feature()).as("virtual threads need Java 21+").isGreaterThanOrEqualTo(21);
        runner().withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
            Outer outer = context.getBean(Outer.class);
            Inner inner = context.getBean(Inner.class);
            ThreadFactory virtual = virtualThreadFactory();
            List<String> seen = CompletableFuture.supplyAsync(() -> outer.outer(5L),
                    (task) -> virtual.newThread(task).start()).get(10, TimeUnit.SECONDS);
            assertThat(seen.get(0)).isNotNull().isEqualTo(seen.get(1)).isEqualTo(seen.get(2));
            assertThat(seen.get(5)).isEqualTo("true");
            // And a second virtual thread is kept out while the first holds the key.
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> outer.holdUntil(6L, inside, done),
                    (task) -> virtual.newThread(task).start());
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Object> intruder = CompletableFuture.supplyAsync(() -> {
                try {
                    return inner.inner(6L);
                }
                catch (LockNotAcquiredException ex) {
                    return ex;
                }
            }, (task) -> virtual.newThread(task).start());
            assertThat(intruder.get(10, TimeUnit.SECONDS)).isInstanceOf(LockNotAcquiredException.class);
            done.countDown();
            holder.get(10, TimeUnit.SECONDS);
        });
    }

    @Test
    void lockContextExposesTheInnermostHandleAndItsFencingToken() {
        runner().run((context) -> {
            Outer outer = context.getBean(Outer.class);
            assertThat(LockContext.current()).isEmpty();
            List<Long> fences = outer.twoLevels(1L, 2L);
            assertThat(fences).hasSize(2);
            assertThat(fences.get(0)).isNotEqualTo(fences.get(1));
            assertThat(LockContext.current()).isEmpty();
        });
    }

    @Test
    void lostLeaseWarnsByDefaultAndPublishesAnEvent() {
        runner().run((context) -> {
            Outer outer = context.getBean(Outer.class);
            Events events = context.getBean(Events.class);
            assertThat(outer.outlivesFixedLease(3L)).isEqualTo("done");
            assertThat(events.received).singleElement().satisfies((event) -> {
                assertThat(event.getKey()).isEqualTo("slow:3");
                assertThat(event.getDetection()).isEqualTo(LockLossDetection.RELEASE);
                assertThat(event.getFencingToken()).isPositive();
                assertThat(event.getDetectedAt()).isNotNull();
            });
        });
    }

    @Test
    void lostLeaseThrowsWhenConfigured() {
        runner().withPropertyValues("redis-lock.on-lease-lost=throw").run((context) -> {
            Outer outer = context.getBean(Outer.class);
            assertThatThrownBy(() -> outer.outlivesFixedLease(4L)).isInstanceOfSatisfying(LockLostException.class,
                    (ex) -> assertThat(ex.getKey()).isEqualTo("slow:4"));
            assertThat(context.getBean(Events.class).received).hasSize(1);
        });
    }

    @Test
    void lockDeletedBehindOurBackIsReportedByRenewalAndIsHeldTurnsFalse() {
        runner().withPropertyValues("redis-lock.lease-time=300ms").run((context) -> {
            Outer outer = context.getBean(Outer.class);
            Events events = context.getBean(Events.class);
            boolean heldAtEnd = outer.keyDeletedWhileRunning(9L, events);
            assertThat(heldAtEnd).isFalse();
            assertThat(events.received).singleElement()
                    .satisfies((event) -> assertThat(event.getDetection()).isEqualTo(LockLossDetection.RENEWAL));
        });
    }

    @Test
    void oppositeKeyOrdersNeverDeadlock() throws Exception {
        runner().run((context) -> {
            Outer outer = context.getBean(Outer.class);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<?> forward = pool.submit(() -> {
                    for (int i = 0; i < 1_000; i++) {
                        outer.transfer("a", "b");
                    }
                });
                Future<?> backward = pool.submit(() -> {
                    for (int i = 0; i < 1_000; i++) {
                        outer.transfer("b", "a");
                    }
                });
                forward.get(120, TimeUnit.SECONDS);
                backward.get(120, TimeUnit.SECONDS);
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(outer.transfers()).isEqualTo(2_000);
            assertThat(LockValues.held(redis.command("GET", "acct:a"))).as("acct:a").isFalse();
assertThat(LockValues.held(redis.command("GET", "acct:b"))).as("acct:b").isFalse();
        });
    }

    @Test
    void collectionValuedKeyLocksEveryElementAndDuplicatesCollapse() {
        runner().run((context) -> {
            Outer outer = context.getBean(Outer.class);
            List<String> held = outer.order(List.of("x", "y", "x"));
            assertThat(held).containsExactly("order:x:lock", "order:y:lock");
        });
    }

    private static ThreadFactory virtualThreadFactory() {
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            // Through the public Thread.Builder interface: the implementing class is not accessible.
            Method factory = Class.forName("java.lang.Thread$Builder").getMethod("factory");
            return (ThreadFactory) factory.invoke(builder);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    public static class Inner {

        @DistributedLock(key = "sku:#id:lock")
        public String inner(long id) {
            return (String) redis.command("GET", "sku:" + id + ":lock");
        }

        @DistributedLock(key = "sku:#id:lock")
        public long innerFence(long id) {
            return LockContext.current().orElseThrow().fencingToken();
        }
    }

    public static class Outer {

        private final Inner inner;

        private int transfers;

        public Outer(Inner inner) {
            this.inner = inner;
        }

        @DistributedLock(key = "sku:#id:lock")
        public List<String> outer(long id) {
            List<String> seen = new ArrayList<>();
            seen.add((String) redis.command("GET", "sku:" + id + ":lock"));
            seen.add(this.inner.inner(id));
            seen.add((String) redis.command("GET", "sku:" + id + ":lock"));
            seen.add(Long.toString(LockContext.current().orElseThrow().fencingToken()));
            seen.add(Long.toString(this.inner.innerFence(id)));
            seen.add(Boolean.toString(isVirtual(Thread.currentThread())));
            return seen;
        }

        @DistributedLock(key = "sku:#id:lock")
        public void holdUntil(long id, CountDownLatch inside, CountDownLatch done) {
            inside.countDown();
            try {
                done.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        @DistributedLock(key = "sku:#first:lock")
        public List<Long> twoLevels(long first, long second) {
            long outerFence = LockContext.current().orElseThrow().fencingToken();
            long innerFence = this.inner.innerFence(second);
            assertThat(LockContext.all()).hasSize(1);
            return List.of(outerFence, innerFence);
        }

        @DistributedLock(key = "slow:#id", leaseTime = "100ms")
        public String outlivesFixedLease(long id) {
            awaitGone("slow:" + id);
            return "done";
        }

        @DistributedLock(key = "gone:#id")
        public boolean keyDeletedWhileRunning(long id, Events events) {
            LockHandle handle = LockContext.current().orElseThrow();
            redis.command("DEL", "gone:" + id);
            await("the lock loss event").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> !events.received.isEmpty());
            return handle.isHeld();
        }

        @DistributedLock(key = { "acct:#from", "acct:#to" }, waitTime = "30s")
        public void transfer(String from, String to) {
            this.transfers++;
        }

        public int transfers() {
            return this.transfers;
        }

        @DistributedLock(key = "order:#{#skus}:lock")
        public List<String> order(List<String> skus) {
            List<String> held = new ArrayList<>();
            for (String key : LockContext.current().orElseThrow().key().split(",")) {
                if (redis.command("GET", key) != null) {
                    held.add(key);
                }
            }
            return held;
        }

        private static boolean isVirtual(Thread thread) {
            try {
                return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
            }
            catch (ReflectiveOperationException ex) {
                return false;
            }
        }

        private static void awaitGone(String key) {
            await("key " + key + " to go away").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(2))
                    .until(() -> !LockValues.held(redis.command("GET", key)));
        }
    }

    public static class Events implements ApplicationListener<LockLostEvent> {

        final List<LockLostEvent> received = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(LockLostEvent event) {
            this.received.add(event);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Inner inner() {
            return new Inner();
        }

        @Bean
        Outer outer(Inner inner) {
            return new Outer(inner);
        }

        @Bean
        Events events() {
            return new Events();
        }
    }
}
