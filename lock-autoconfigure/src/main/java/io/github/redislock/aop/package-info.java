/**
 * The annotation front end: {@code LockOperationSource} parses and checks {@code @DistributedLock} once per
 * method (key templates, durations, failure handling), {@code DistributedLockAdvisor} applies the interceptor
 * to locked methods, and the interceptor resolves the keys of a call and runs it through
 * {@code DistributedLockTemplate}. Everything but the two beans is package-private.
 */
@NullMarked
package io.github.redislock.aop;

import org.jspecify.annotations.NullMarked;
