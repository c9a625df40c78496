/**
 * Auto-configuration of the ZooKeeper lock store: the Curator client (unless the application has one), the store
 * (the library's {@code LockEngineAutoConfiguration} builds the engine over it), and the failure analysis of bad
 * ZooKeeper settings.
 */
@NullMarked
package io.github.redislock.zookeeper.autoconfigure;

import org.jspecify.annotations.NullMarked;
