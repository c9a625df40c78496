/**
 * The transaction commit check: a transaction that began under a lock rolls back if the lock was lost.
 */
@NullMarked
package io.github.redislock.tx;

import org.jspecify.annotations.NullMarked;
