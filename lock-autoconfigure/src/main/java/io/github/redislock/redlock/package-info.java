/**
 * Redlock: one lock across several independent Redis masters, taken on a majority of them within its validity
 * time, with fencing tokens kept strictly increasing by counters a majority raises. A store
 * ({@link RedlockStore}, public: a {@code LockStore}) under the store-neutral engine
 * ({@link io.github.redislock.engine.LockEngine}), which gives it reentrancy and multi-key;
 * {@link RedlockClient} is that engine built in one constructor call. A lock is taken on N ≥ 3 masters with no
 * replication between them, so that it survives the loss of any minority of them. What it shares with the
 * single-Redis store (key names, the scripts both run, the holder view, the instance registry) comes from
 * {@code io.github.redislock.redis.support}; its own {@code fence.lua} sits next to {@code RedlockNode}.
 * <p>
 * An attempt sends the single-Redis acquire script to every node at once, with one fresh token. It succeeds
 * when a majority took the lock within its validity time: the lease, less the time the attempt took, less a
 * clock drift allowance (1% of the lease plus 2 ms). The same script raises the lock's fencing counter on each
 * node that took it, by one (or to the node's clock in whole seconds when it has none), and the fencing token is the
 * largest value the majority returned. When a majority returned just that value (the common case: the counters went
 * up from the same value), it already stands on a majority; otherwise it is written to every node with "raise to
 * at least" and confirmed by a majority, again within the validity time. Any two majorities share a node, whose counter the next
 * holder's take raises past the token, whichever nodes answer it: tokens strictly increase as long as no node that
 * confirmed a token loses its counter (see below). A failed attempt releases
 * the token everywhere. Waiting is repeated attempts, 20–70 ms apart (random, so that contenders do not
 * collide in step), until the wait time ends. Renewal and release go to every node; a renewal in which more nodes
 * answer that they no longer hold the lock than a majority can spare marks it lost, and a lock not extended by
 * a majority within its validity time counts as no longer held. Each lock of a renewal batch is judged on its
 * own round: one that misses a majority leaves the others extended. A lock closed before its holdAtLeast has
 * passed is kept on every node instead, owned by nobody, for the rest of it (counted from when the majority and
 * the fencing token were confirmed); the next holder's token still comes from the counters.
 * <p>
 * Read locks and semaphores (shares) use the single Redis's {@code share.lua} on each node as one attempt that never
 * queues: a share is held where a majority let it in, so a read lock and a write lock can never both hold a
 * majority (any two majorities share a node, which keeps readers or one writer). A semaphore's permit needs more,
 * since N holders per node do not bound the holders across nodes (with 3 nodes and N = 2, three holders can each
 * have a different pair of nodes): each node gives a permit the lowest of the N slots free there, and the permit
 * counts only where a majority gave it the same slot (its entries in other slots go at once), so no two holders
 * count on one slot and at most N hold at once. Each share's fencing token comes from the counters as a write
 * lock's does, raised only past them ({@code fence.lua}'s "above"), so that shares holding the key together each
 * get a token of their own and every later writer one larger than all of them. Shares wait by retries; a writer
 * that found readers on its key waits with a place in each node's queue ({@link RedlockWaiting}), so that readers
 * arriving after it wait behind it and the last reader's release on a node hands that node's key to it: readers
 * cannot starve a writer. A key in use with another permit count on any node fails the take at once.
 * <p>
 * The engine over the store makes Redlock locks reentrant and multi-key as single-Redis locks are: the holding thread asking again gets a nested handle at once, with no node call, and
 * the key is released on every node when the outermost handle closes; other threads, and non-reentrant
 * (asynchronous, reactive) requests, are kept out. Several keys are taken in order, all or nothing.
 * <p>
 * Threads. A lock costs two rounds (the take with the counter's raise in the same script, and at the end the
 * release; a third, the fencing token's raise, only when the majority's counters differed), each sent to every node at once from the caller's thread, the caller waiting once for
 * the round's outcome. On Lettuce's shared connections (Spring Boot's default) no round holds a thread while it
 * waits: the replies come on Lettuce's I/O thread ({@code LettuceNodeCalls}). On Jedis, or
 * a Lettuce factory without a shared connection, each call is a blocking template call on the store's
 * {@code redlock-call} threads. Either way a node has at most a bounded number of calls on their way: past it a
 * round waits for the node while it ends calls (it is only behind the majority that decided the rounds before), and
 * a node that ends none for a second is stalled, failing further calls at once instead of piling them up.
 * <p>
 * Limits. A node restarted without its data (no persistence, or {@code appendfsync} other than
 * {@code always}) forgets the locks and counters it had: keep a restarted node out of the configuration for
 * one lease (the Redlock rule; this store does not detect restarts), and keep fewer nodes restarting empty than
 * the majority that raised the last token covers, or fencing tokens may repeat. Process pauses and clock jumps
 * beyond the drift allowance break it as they break every lease-based lock; fencing tokens are the defence.
 */
@NullMarked
package io.github.redislock.redlock;

import org.jspecify.annotations.NullMarked;
