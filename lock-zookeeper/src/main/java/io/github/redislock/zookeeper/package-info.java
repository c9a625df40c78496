/**
 * The ZooKeeper lock store: {@link io.github.redislock.zookeeper.ZooKeeperLockStore} under the store-neutral
 * {@link io.github.redislock.engine.LockEngine}, through Apache Curator.
 */
@NullMarked
package io.github.redislock.zookeeper;

import org.jspecify.annotations.NullMarked;
