/** Spring Boot auto-configuration of ShedLock over this library. */
@NullMarked
package io.github.redislock.shedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
