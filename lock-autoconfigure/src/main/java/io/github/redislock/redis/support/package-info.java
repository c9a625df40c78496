/**
 * What the two Redis stores share, and the only package either may use of the other's side: the single-Redis
 * store ({@code io.github.redislock.redis}) and Redlock ({@code io.github.redislock.redlock}) both depend on it,
 * and it depends on neither.
 * <ul>
 * <li>Key names: {@code LockKeys} (the key rules, over the engine's {@code KeyRules}, and the key prefix's),
 * {@code KeySlots} (cluster slots, companion keys, hand-off channels, registry entries) and {@code LockValue}
 * (what a lock key holds);</li>
 * <li>the Lua scripts both run ({@code acquire.lua}, {@code renew.lua}, {@code unlock.lua}, {@code inspect.lua}, and
 * for read locks and semaphores {@code share.lua} and {@code share-renew.lua}, next to this package's classes) and
 * {@code LockScripts}, the one loader of every store's scripts (read once, SHA-1 computed once), with
 * {@code LockScriptsRuntimeHints}, which registers every script for native images;</li>
 * <li>the holder view ({@code HolderView}, over {@code NodeReads}: one node or a majority of masters; a shared key's
 * by {@code SharedKeyView}) and the instance registry ({@code InstanceRegistry}) that names holders.</li>
 * </ul>
 * Internal: used by the Redis stores of this library, not part of its API.
 */
@NullMarked
package io.github.redislock.redis.support;

import org.jspecify.annotations.NullMarked;
