/**
 * Leader election over the lock store: {@link io.github.redislock.leader.Leadership} (this application's part in
 * one election), {@link io.github.redislock.leader.LeaderCandidate} (the candidate that takes the election's lock
 * and leads while it holds it), and the events of a grant and a revocation. {@code redis-lock.leader.name} defines
 * one candidate; {@code @LeaderOnly} runs a method only while this instance leads. See docs/leader-election.md.
 */
@NullMarked
package io.github.redislock.leader;

import org.jspecify.annotations.NullMarked;
