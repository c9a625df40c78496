package io.github.redislock.autoconfigure;

import java.util.Set;
import java.util.TreeSet;

import io.github.redislock.aop.LeaderOnlyAdvisor;
import io.github.redislock.leader.Leadership;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Fails the start-up when a {@code @LeaderOnly} method names an election the application does not stand in: its
 * calls would otherwise fail one by one at run time.
 */
final class LeaderOnlyElectionsCheck implements SmartInitializingSingleton {

    private final ObjectProvider<LeaderOnlyAdvisor> advisor;

    private final ObjectProvider<Leadership> leaderships;

    LeaderOnlyElectionsCheck(ObjectProvider<LeaderOnlyAdvisor> advisor, ObjectProvider<Leadership> leaderships) {
        this.advisor = advisor;
        this.leaderships = leaderships;
    }

    @Override
    public void afterSingletonsInstantiated() {
        LeaderOnlyAdvisor current = this.advisor.getIfUnique();
        if (current == null) {
            return;
        }
        Set<String> known = new TreeSet<>();
        this.leaderships.orderedStream().forEach((leadership) -> known.add(leadership.name()));
        Set<String> missing = new TreeSet<>(current.elections());
        missing.removeAll(known);
        if (!missing.isEmpty()) {
            throw new LockConfigurationException("@LeaderOnly methods name the elections " + missing
                    + ", which the application does not stand in" + (known.isEmpty() ? "" : " (it stands in " + known + ")"),
                    "Set redis-lock.leader.name to the election, or define a LeaderCandidate bean for each election "
                            + "@LeaderOnly names.");
        }
    }
}
