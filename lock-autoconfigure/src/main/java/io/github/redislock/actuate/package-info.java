/**
 * The Actuator endpoint {@code redislocks}: what this application's lock engine holds and waits for now, and
 * how lease renewal fares. Read-only: no operation releases or changes a lock.
 */
@NullMarked
package io.github.redislock.actuate;

import org.jspecify.annotations.NullMarked;
