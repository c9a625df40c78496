package io.github.redislock.sample.simulation;

import java.net.URI;
import java.util.List;

import io.github.redislock.sample.shop.SkuStatus;

/**
 * One sale, start to finish.
 *
 * @param locked whether {@code @DistributedLock} was on ({@code redis-lock.enabled})
 * @param instances base URIs of the instances that served it
 * @param crowd what the buyers saw
 * @param finalState what Redis holds afterwards: the ground truth for items sold
 */
public record RunResult(boolean locked, List<URI> instances, CrowdResult crowd, SkuStatus finalState) {
}
