/**
 * Micrometer meters of the lock engine: what only the engine sees (lost locks by how they were detected,
 * failed renewal rounds, hand-offs taken over, keys held and threads waiting now), next to the meters the
 * template's observations give.
 */
@NullMarked
package io.github.redislock.metrics;

import org.jspecify.annotations.NullMarked;
