/**
 * The torture suite: worker JVMs that use the starter through its public API, fault injection on processes the
 * suite started, and a witness Redis that judges the locks without trusting them. Run it with
 * {@code java -jar redis-lock-torture.jar}; {@link io.github.redislock.torture.TortureMain} lists the options.
 */
@NullMarked
package io.github.redislock.torture;

import org.jspecify.annotations.NullMarked;
