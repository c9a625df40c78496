package io.github.redislock.test;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.redislock.leader.Leadership;
import io.github.redislock.leader.LeadershipGrantedEvent;
import io.github.redislock.leader.LeadershipRevokedEvent;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;

/**
 * A leadership the test decides: this application leads the election, or not, until the test says otherwise; no
 * lock store is asked. Define it as a bean and the starter's candidate backs off ({@code redis-lock.leader.name} is
 * then not needed); {@code @LeaderOnly} methods run or are skipped by it, and its grants and revocations are
 * published as the real candidate's are (the events of a grant or revocation on the test's thread).
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureInProcessLocks
 * class ReconciliationTest {
 *
 *     @TestConfiguration
 *     static class Election {
 *
 *         @Bean
 *         TestLeadership leadership() {
 *             return TestLeadership.following("reconciliation");
 *         }
 *     }
 *
 *     @Autowired
 *     TestLeadership leadership;
 *
 *     @Test
 *     void onlyTheLeaderReconciles() {
 *         assertThat(job.reconcile()).isNull(); // skipped: not the leader
 *         leadership.grant();
 *         assertThat(job.reconcile()).isNotNull();
 *     }
 * }
 * }</pre>
 * Each grant starts a new term, one larger than the one before. For a test of the election itself, use the real
 * candidate ({@code redis-lock.leader.name}) with {@link AutoConfigureInProcessLocks}: the only candidate in the
 * JVM, it leads at once after the context has started.
 */
public final class TestLeadership implements Leadership, ApplicationEventPublisherAware {

    private final String name;

    private @Nullable ApplicationEventPublisher events;

    /** Guarded by this. */
    private long lastTerm;

    /** Guarded by this. */
    private boolean leading;

    private TestLeadership(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("The election's name must not be blank: '" + name + "'");
        }
        this.name = name;
    }

    /** This application leads the election, in term 1, from the start. */
    public static TestLeadership leading(String name) {
        TestLeadership leadership = new TestLeadership(name);
        leadership.lastTerm = 1;
        leadership.leading = true;
        return leadership;
    }

    /** Another instance leads the election; this one stands by until {@link #grant()}. */
    public static TestLeadership following(String name) {
        return new TestLeadership(name);
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher events) {
        this.events = events;
    }

    /** Makes this application the leader in a new term, and publishes the grant; nothing if it leads already. */
    public void grant() {
        long term;
        synchronized (this) {
            if (this.leading) {
                return;
            }
            this.leading = true;
            term = ++this.lastTerm;
            notifyAll();
        }
        publish(new LeadershipGrantedEvent(this, this.name, term));
    }

    /**
     * Ends this application's term for the reason given (LOST: as if the lock were lost; YIELDED, STOPPED), and
     * publishes the revocation; nothing if it does not lead.
     */
    public void revoke(LeadershipRevokedEvent.Reason reason) {
        long term;
        synchronized (this) {
            if (!this.leading) {
                return;
            }
            this.leading = false;
            term = this.lastTerm;
        }
        publish(new LeadershipRevokedEvent(this, this.name, term, reason));
    }

    @Override
    public String name() {
        return this.name;
    }

    @Override
    public synchronized boolean isLeader() {
        return this.leading;
    }

    @Override
    public synchronized OptionalLong term() {
        return this.leading ? OptionalLong.of(this.lastTerm) : OptionalLong.empty();
    }

    /** Revokes with {@link LeadershipRevokedEvent.Reason#YIELDED}. */
    @Override
    public void yieldLeadership() {
        revoke(LeadershipRevokedEvent.Reason.YIELDED);
    }

    @Override
    public synchronized boolean awaitLeadership(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long left;
        while (!this.leading && (left = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return this.leading;
    }

    private void publish(Object event) {
        ApplicationEventPublisher publisher = this.events;
        if (publisher != null) {
            publisher.publishEvent(event);
        }
    }

    @Override
    public String toString() {
        return "TestLeadership[" + this.name + (this.leading ? ", leading in term " + this.lastTerm : ", following")
                + "]";
    }
}
