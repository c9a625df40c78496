package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this instance leads the election ({@code io.github.redislock.leader.Leadership});
 * otherwise the call is skipped and returns what a skipped {@code @DistributedLock(onFailure = SKIP)} call returns:
 * {@code null}, an empty {@code Optional}, an empty publisher or a completed future of {@code null}. Typically on a
 * {@code @Scheduled} method that every instance schedules and only the leader should run:
 *
 * <pre>{@code
 * @Scheduled(fixedRate = 60_000)
 * @LeaderOnly
 * public void reconcile() { ... }
 * }</pre>
 *
 * Leadership that ends while the method runs (lost, yielded or stopped: another instance may lead already) is told
 * as a lost lock is: with {@code redis-lock.on-lease-lost=throw} the call throws {@code LockLostException} once the
 * method has returned; with {@code warn} (the default) a warning is logged. The method's work may read the term
 * from {@code LockContext.current().fencingToken()} (plain methods) to fence its writes.
 * <p>
 * Checked when the application context starts: the method must be interceptable (public, not final, not static),
 * and must not return a primitive other than {@code void} (a skipped call has nothing to return). Like every
 * Spring proxy-based annotation, it applies to calls through the bean's proxy. Together with
 * {@code @DistributedLock} on one method, the leadership is checked first.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /**
     * The election's name, or a {@code ${property}} placeholder; empty (the default): {@code redis-lock.leader.name},
     * the application's one election.
     */
    String value() default "";
}
