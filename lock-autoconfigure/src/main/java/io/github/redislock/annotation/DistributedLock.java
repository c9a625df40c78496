package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a distributed lock, so that at most one caller across every instance
 * of the application runs it for the same key at a time.
 *
 * <pre>{@code
 * @DistributedLock(key = "sku:#id:lock", waitTime = "500ms")
 * public Order purchase(long id) { ... }
 * }</pre>
 *
 * Every key is parsed and checked when the application context starts; a mistake stops the start-up with a
 * message naming the method. May be used as a meta-annotation on an annotation of your own.
 * <p>
 * Like every Spring proxy-based annotation, it applies to calls that go through the bean's proxy: a call
 * from another method of the same object ({@code this.purchase(..)}) is not locked.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

    /**
     * The lock keys; each entry is a template evaluated against the method's arguments. Two forms:
     * <ul>
     * <li>short: {@code sku:#id:lock}, {@code order:#order.sku:lock}, {@code #p0} / {@code #a0} (by position);
     * a reference is {@code #} followed by a parameter name and optional {@code .property} steps;</li>
     * <li>template: {@code sku:#{#id}:lock}, where {@code #{...}} holds any SpEL expression over the
     * arguments ({@code #name}, {@code #p0}), {@code @bean} references and the root object ({@code method},
     * {@code methodName}, {@code args}, {@code target}, {@code targetClass}).</li>
     * </ul>
     * Several entries mean several locks, all taken before the method runs (in a canonical order, so two
     * callers naming the same keys in a different order cannot deadlock) and released together. A resolved
     * part that is null or empty, or a key longer than 512 bytes, fails the call with a
     * {@link io.github.redislock.LockException} before the store is contacted.
     */
    String[] key();

    /**
     * How long to wait for the lock: {@code "500ms"}, {@code "2s"}, ISO-8601 ({@code "PT2S"}) or a
     * {@code ${property}} placeholder. Empty means {@code redis-lock.wait-time}; zero means one attempt.
     */
    String waitTime() default "";

    /**
     * Empty (the default): the lock lives {@code redis-lock.lease-time} in the store and is renewed every third of
     * that for as long as the method runs, so a slow method keeps it and a crashed instance loses it within
     * one lease. A value (same forms as {@link #waitTime()}) is a fixed lease, never renewed: the key expires
     * after it even if the method is still running.
     */
    String leaseTime() default "";

    /**
     * The least time the lock stays taken after it was acquired (ShedLock's {@code lockAtLeastFor}), for
     * {@code @Scheduled} jobs on several instances: same forms as {@link #waitTime()}; empty (the default) for
     * none. When the method returns or throws sooner, the key stays in the store, owned by nobody who can enter,
     * until this long after the acquisition, and then expires: an instance whose scheduler fires a little later
     * finds it taken and skips. A method that runs longer releases as usual. A fixed {@link #leaseTime()} must
     * not be shorter.
     */
    String holdAtLeast() default "";

    /**
     * How the key is shared: {@link io.github.redislock.LockMode#WRITE} (the default) is alone on it, against
     * writers and readers; {@link io.github.redislock.LockMode#READ} shares it with other readers. A write lock
     * taken inside the same thread's read lock on the key (an upgrade) fails at once with a
     * {@link io.github.redislock.LockException}; a read lock inside a write lock enters it.
     */
    io.github.redislock.LockMode mode() default io.github.redislock.LockMode.WRITE;

    /**
     * How many holders the key admits at once across every instance: 1 (the default) is a lock; more makes the key
     * a semaphore of that many permits (a concurrency limit, not a rate limit), each held like a lock: renewed
     * while the method runs, released when it ends, back within one lease if its instance crashes. Every user of one
     * key must give the same count. Less than 1, or more than 1 with {@code mode = READ}, stops the application at
     * start-up.
     */
    int permits() default 1;

    /** What to do when the lock is not acquired within the wait time. */
    OnLockFailure onFailure() default OnLockFailure.THROW;

    /**
     * The name of a method on the same bean to call instead of throwing
     * {@link io.github.redislock.LockNotAcquiredException}. It takes the same parameters, optionally followed
     * by a {@code LockNotAcquiredException}, and returns a type assignable to this method's return type.
     */
    String fallbackMethod() default "";
}
