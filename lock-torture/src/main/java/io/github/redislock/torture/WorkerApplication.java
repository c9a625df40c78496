package io.github.redislock.torture;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostEvent;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.LeaderOnly;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * The Spring application each worker JVM runs: the starter, auto-configured from {@code spring.data.redis.*}
 * and {@code redis-lock.*} exactly as a user's application would be, plus beans whose methods are locked by
 * the annotation (those of the shared workloads in {@link SharedSections}). Nothing here reaches into the engine.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class WorkerApplication {

    @Bean
    AnnotatedSections annotatedSections() {
        return new AnnotatedSections();
    }

    @Bean
    ReentrantSections reentrantSections(AnnotatedSections sections) {
        return new ReentrantSections(sections);
    }

    @Bean
    SharedSections.Annotated sharedSections() {
        return new SharedSections.Annotated();
    }

    @Bean
    SharedSections.Nested nestedSharedSections(SharedSections.Annotated sections) {
        return new SharedSections.Nested(sections);
    }

    /** Only in the leader election workload, whose workers stand in an election ({@code redis-lock.leader.name}). */
    @Bean
    @ConditionalOnProperty("redis-lock.leader.name")
    LeaderSections leaderSections() {
        return new LeaderSections();
    }

    @Bean
    LostLocks lostLocks() {
        return new LostLocks();
    }

    /** Runs a section under {@code @DistributedLock} with the configured, renewed lease. */
    public static class AnnotatedSections {

        @DistributedLock(key = "#key")
        public void renewed(String key, Section section) {
            section.run(LockContext.current().orElseThrow());
        }
    }

    /** Takes the lock, then calls another locked method for the same key: the inner lock must be re-entered. */
    public static class ReentrantSections {

        private final AnnotatedSections inner;

        ReentrantSections(AnnotatedSections inner) {
            this.inner = inner;
        }

        @DistributedLock(key = "#key")
        public void outer(String key, Section section) {
            LockHandle outer = LockContext.current().orElseThrow();
            this.inner.renewed(key, (handle) -> {
                if (handle.fencingToken() != outer.fencingToken()) {
                    throw new IllegalStateException("Re-entered " + key + " with another fencing token: "
                            + handle.fencingToken() + " inside " + outer.fencingToken());
                }
                section.run(handle);
            });
        }
    }

    /**
     * Runs a section only while this worker leads the election, under the term's handle: its fencing token is the
     * term, {@code isHeld()} whether the term goes on.
     */
    public static class LeaderSections {

        @LeaderOnly
        public void lead(Section section) {
            section.run(LockContext.current().orElseThrow());
        }
    }

    /** The critical section's body, given the lock it runs under. */
    @FunctionalInterface
    public interface Section {

        void run(LockHandle lock);
    }

    /**
     * The locks this application was told it lost, by {@link LockLostEvent}: token and fencing token, since
     * threads that pass a lock on among themselves share its token but each has its own fencing token.
     */
    static class LostLocks {

        private final Set<String> tokens = ConcurrentHashMap.newKeySet();

        private volatile Listener listener = (event) -> {
        };

        @EventListener
        void lost(LockLostEvent event) {
            this.tokens.add(event.getToken() + "|" + event.getFencingToken());
            this.listener.lost(event);
        }

        boolean contains(LockHandle lock) {
            return this.tokens.contains(lock.token() + "|" + lock.fencingToken());
        }

        void setListener(Listener listener) {
            this.listener = listener;
        }

        interface Listener {

            void lost(LockLostEvent event);
        }
    }
}
