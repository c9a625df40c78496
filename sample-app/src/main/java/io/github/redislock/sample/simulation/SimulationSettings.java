package io.github.redislock.sample.simulation;

import org.springframework.core.env.Environment;

/**
 * The size of the simulated sale. Defaults match the README; each can be changed on the command line, e.g.
 * {@code --simulate --simulation.buyers=2000 --simulation.concurrency=16}.
 *
 * @param items how many items are put on sale
 * @param buyers how many purchase requests are sent, one per buyer
 * @param concurrency how many buyers are in flight at once (client threads), split evenly across the instances
 * @param instances how many app instances share the Redis
 * @param sku the SKU on sale
 * @param warmUpBuyers how many uncounted requests the first run sends first (to a sold-out SKU), so that both runs
 * are timed on a warmed-up JVM; 0 for none
 */
public record SimulationSettings(int items, int buyers, int concurrency, int instances, long sku, int warmUpBuyers) {

    public SimulationSettings {
        require(items >= 1, "simulation.items must be at least 1");
        require(buyers >= 1, "simulation.buyers must be at least 1");
        require(concurrency >= 1, "simulation.concurrency must be at least 1");
        require(instances >= 1, "simulation.instances must be at least 1");
        require(warmUpBuyers >= 0, "simulation.warm-up-buyers must be zero or more");
    }

    static SimulationSettings from(Environment environment) {
        return new SimulationSettings(environment.getProperty("simulation.items", Integer.class, 10),
                environment.getProperty("simulation.buyers", Integer.class, 10_000),
                environment.getProperty("simulation.concurrency", Integer.class, 64),
                environment.getProperty("simulation.instances", Integer.class, 2),
                environment.getProperty("simulation.sku", Long.class, 42L),
                environment.getProperty("simulation.warm-up-buyers", Integer.class, 5_000));
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
