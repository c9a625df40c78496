package io.github.redislock.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * On a Spring Boot test class: a {@link LockRecorder} bean records every lock the application takes, with Redis or
 * in-process locks alike, for {@link LockAssertions#assertThat(LockRecorder)}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(LockRecorderAutoConfiguration.class)
public @interface AutoConfigureLockRecorder {

}
