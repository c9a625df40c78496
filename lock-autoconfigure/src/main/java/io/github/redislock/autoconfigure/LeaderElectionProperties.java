package io.github.redislock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Leader election, under {@code redis-lock.leader.*}. The leader's lock has the renewed lease of every lock,
 * {@code redis-lock.lease-time}: a leader that dies is replaced within it.
 */
@ConfigurationProperties("redis-lock.leader")
public class LeaderElectionProperties implements Validator {

    /**
     * Name of the election this application stands in, e.g. "reports": every instance with the same name is a
     * candidate, one of them leads. Unset: no candidate (define LeaderCandidate beans for several elections, one per name).
     */
    private @Nullable String name;

    /**
     * How long a leader that yielded waits before it stands again; the candidates waiting for the leadership get
     * it first.
     */
    private Duration yieldPause = Duration.ofSeconds(1);

    public @Nullable String getName() {
        return this.name;
    }

    public void setName(@Nullable String name) {
        this.name = name;
    }

    public Duration getYieldPause() {
        return this.yieldPause;
    }

    public void setYieldPause(Duration yieldPause) {
        this.yieldPause = yieldPause;
    }

    @Override
    public boolean supports(Class<?> type) {
        return LeaderElectionProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        LeaderElectionProperties properties = (LeaderElectionProperties) target;
        if (properties.getName() != null && properties.getName().isBlank()) {
            errors.rejectValue("name", "blank", "must not be blank; leave it unset for no election");
        }
        if (properties.getYieldPause() == null || properties.getYieldPause().isNegative()) {
            errors.rejectValue("yieldPause", "negative", "must be zero or more, e.g. 1s");
        }
    }
}
