/** Spring Boot auto-configuration of the Spring Integration lock registry over this library. */
@NullMarked
package io.github.redislock.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
