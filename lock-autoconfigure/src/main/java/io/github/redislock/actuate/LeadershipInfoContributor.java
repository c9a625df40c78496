package io.github.redislock.actuate;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.github.redislock.leader.Leadership;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Says in {@code /actuator/info}, under {@code leadership}, whether this instance leads each election it stands in,
 * and in which term: {@code "leadership": {"reports": {"leader": true, "term": 1795744847877299}}}, or
 * {@code {"leader": false}} while it stands by. It reads each {@link Leadership} locally ({@link Leadership#term()},
 * no call to the store), so the answer is this instance's own view at that moment. An application that stands in no
 * election gets no {@code leadership} entry.
 */
public final class LeadershipInfoContributor implements InfoContributor {

    /** The entry's name in {@code /actuator/info}. */
    public static final String KEY = "leadership";

    private final Supplier<? extends Collection<? extends Leadership>> elections;

    /** @param elections the elections this application stands in; with none, nothing is contributed */
    public LeadershipInfoContributor(Supplier<? extends Collection<? extends Leadership>> elections) {
        this.elections = elections;
    }

    @Override
    public void contribute(Info.Builder builder) {
        Map<String, Object> byName = new LinkedHashMap<>();
        for (Leadership leadership : this.elections.get()) {
            Map<String, Object> election = new LinkedHashMap<>();
            // One read: isLeader() and then term() could straddle a revocation.
            leadership.term().ifPresentOrElse((term) -> {
                election.put("leader", true);
                election.put("term", term);
            }, () -> election.put("leader", false));
            byName.put(leadership.name(), election);
        }
        if (!byName.isEmpty()) {
            builder.withDetail(KEY, byName);
        }
    }
}
