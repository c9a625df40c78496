/**
 * {@code @DistributedLock} and what it may say about a busy lock.
 */
@NullMarked
package io.github.redislock.annotation;

import org.jspecify.annotations.NullMarked;
