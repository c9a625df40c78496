package io.github.redislock.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * On a Spring Boot test class: {@code @DistributedLock} and the {@code DistributedLockTemplate} lock in this JVM,
 * the library's engine over an {@link InMemoryLockStore} bean, instead of in Redis (or in ZooKeeper, with
 * {@code redis-lock-zookeeper}), for tests where the lock is not what is tested. The test then needs no Redis for
 * its locks (and none at all if nothing else of the application uses one). Backs off when the test defines a
 * {@code LockProvider} or a {@code LockStore} of its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(InProcessLockAutoConfiguration.class)
public @interface AutoConfigureInProcessLocks {

}
