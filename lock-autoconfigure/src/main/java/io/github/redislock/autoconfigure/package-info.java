/**
 * Spring Boot auto-configuration of redis-lock on the application's own Redis connection factory, its
 * properties ({@code redis-lock.*}) and the failure analysis of a bad lock declaration.
 */
@NullMarked
package io.github.redislock.autoconfigure;

import org.jspecify.annotations.NullMarked;
