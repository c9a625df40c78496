package io.github.redislock.autoconfigure;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code redislocks} Actuator endpoint, next to Boot's own endpoint settings.
 */
@ConfigurationProperties("management.endpoint.redislocks")
public class RedisLocksEndpointProperties {

    /**
     * When the endpoint shows lock keys: never, when-authorized or always. Keys are built from request data
     * (user ids, order numbers), so, like Boot's show-values, they show as ****** unless allowed.
     */
    private Show showKeys = Show.NEVER;

    /**
     * Roles that may see lock keys when show-keys is when-authorized. Empty: any authenticated user.
     */
    private Set<String> roles = new HashSet<>();

    public Show getShowKeys() {
        return this.showKeys;
    }

    public void setShowKeys(Show showKeys) {
        this.showKeys = showKeys;
    }

    public Set<String> getRoles() {
        return this.roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }
}
