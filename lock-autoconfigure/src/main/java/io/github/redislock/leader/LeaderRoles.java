package io.github.redislock.leader;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.annotation.LeaderRole;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link LeaderRole} beans of an election when this instance is granted it, and stops them when it is
 * revoked (on the candidate's thread, before a yielding or stopping leader releases the election's lock). Found
 * once every singleton exists; a role bean that is no {@link SmartLifecycle}, that would start with the context,
 * or that names no election fails the start-up.
 */
public final class LeaderRoles implements ApplicationListener<ApplicationEvent>, SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(LeaderRoles.class);

    private final ListableBeanFactory beans;

    private final Supplier<@Nullable String> defaultElection;

    /** The role beans by election, found when every singleton exists. */
    private final Map<String, List<SmartLifecycle>> roles = new ConcurrentHashMap<>();

    /**
     * @param beans where the role beans are
     * @param defaultElection the election of a role without a name ({@code redis-lock.leader.name}), or {@code null}
     */
    public LeaderRoles(ListableBeanFactory beans, Supplier<@Nullable String> defaultElection) {
        this.beans = beans;
        this.defaultElection = defaultElection;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (String name : this.beans.getBeanNamesForAnnotation(LeaderRole.class)) {
            LeaderRole role = this.beans.findAnnotationOnBean(name, LeaderRole.class);
            Object bean = this.beans.getBean(name);
            if (!(bean instanceof SmartLifecycle lifecycle)) {
                throw new IllegalStateException("The bean '" + name + "' is marked @LeaderRole but is no SmartLifecycle;"
                        + " implement SmartLifecycle so that it can be started on the leader and stopped elsewhere");
            }
            if (lifecycle.isAutoStartup()) {
                throw new IllegalStateException("The @LeaderRole bean '" + name + "' starts with the context, so it "
                        + "would run on every instance; return false from isAutoStartup()");
            }
            String election = role.value().isEmpty() ? this.defaultElection.get() : role.value();
            if (election == null || election.isBlank()) {
                throw new IllegalStateException("The @LeaderRole bean '" + name + "' names no election and "
                        + "redis-lock.leader.name is not set; set it, or name the election: @LeaderRole(\"reports\")");
            }
            this.roles.computeIfAbsent(election, (key) -> new ArrayList<>()).add(lifecycle);
        }
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof LeadershipGrantedEvent granted) {
            for (SmartLifecycle role : this.roles.getOrDefault(granted.getName(), List.of())) {
                role.start();
            }
        }
        else if (event instanceof LeadershipRevokedEvent revoked) {
            for (SmartLifecycle role : this.roles.getOrDefault(revoked.getName(), List.of())) {
                stop(role, revoked);
            }
        }
    }

    private static void stop(SmartLifecycle role, LeadershipRevokedEvent revoked) {
        try {
            if (role.isRunning()) {
                role.stop();
            }
        }
        catch (RuntimeException ex) {
            logger.warn("A @LeaderRole bean of '" + revoked.getName() + "' failed to stop on " + revoked, ex);
        }
    }
}
