package io.github.redislock.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * Marks a test class whose outcome cannot depend on the Spring Boot line the build runs on: it exercises only this
 * project's own code (the engine over an in-memory or scripted store, the store kit's own checks, the test harness,
 * the module structure) and the {@code redis-server}/ZooKeeper processes, never a Spring, Spring Data Redis, Lettuce,
 * Jedis or Curator class whose version the line chooses. Such a class runs once, on the default line;
 * {@code ./verify}'s runs against the other lines ({@code -Pboot-4.0}, {@code -Pboot-3.5}) leave out the
 * {@value #TAG} tag, so that their time goes to what those lines can change.
 * <p>
 * Put it only where it is true: a class that starts an application context, connects through a client library or
 * uses an auto-configuration is not line-independent, however small.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag(LineIndependent.TAG)
public @interface LineIndependent {

    /** The JUnit tag the annotation carries, named in the line profiles' {@code surefire.excludedGroups}. */
    String TAG = "line-independent";
}
