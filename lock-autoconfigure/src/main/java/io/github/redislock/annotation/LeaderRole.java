package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code SmartLifecycle} bean for the leader's role (Spring Integration's {@code @Role} with its
 * {@code SmartLifecycleRoleController}): it is started when this instance is granted the leadership of the election
 * and stopped when it is revoked, before a yielding or stopping leader releases the election (so no other instance
 * runs it meanwhile). The bean must not start with the context: its {@code isAutoStartup()} must return false, or
 * the start-up fails naming it.
 *
 * <pre>{@code
 * @Component
 * @LeaderRole
 * class OrderConsumer implements SmartLifecycle {
 *     public boolean isAutoStartup() { return false; }
 *     ...
 * }
 * }</pre>
 */
@Target({ ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderRole {

    /** The election's name; empty (the default): {@code redis-lock.leader.name}. */
    String value() default "";
}
