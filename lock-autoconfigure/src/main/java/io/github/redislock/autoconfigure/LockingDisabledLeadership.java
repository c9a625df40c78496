package io.github.redislock.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.annotation.LeaderOnly;
import io.github.redislock.annotation.LeaderRole;
import io.github.redislock.leader.LeaderCandidate;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * What leader election means with {@code redis-lock.enabled=false}: there is no election, so every instance acts as
 * if it were the only one, which leads. {@code @LeaderOnly} methods run unguarded (no advice is installed), and the
 * {@code @LeaderRole} beans are started here once the context is refreshed (in the candidate's phase,
 * {@link LeaderCandidate#PHASE}) and stopped when it closes. That is said once at INFO, naming a {@code @LeaderOnly}
 * method or a role bean, since with several instances it means that each of them runs the leader's work.
 * <pre>
 * state     event                                      next state
 * CREATED   every singleton exists: the role beans     FOUND (INFO once, if any method or role bean)
 *           and a @LeaderOnly method are found
 * FOUND     start() (the context refreshed)            RUNNING: each role bean started
 * RUNNING   stop() (the context closes)                STOPPED: each role bean that runs stopped
 * </pre>
 */
final class LockingDisabledLeadership implements SmartInitializingSingleton, SmartLifecycle {

    private static final Log logger = LogFactory.getLog(LockingDisabledLeadership.class);

    private final ConfigurableListableBeanFactory beanFactory;

    private final List<SmartLifecycle> roles = new ArrayList<>();

    private volatile boolean running;

    LockingDisabledLeadership(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> roleBeans = new ArrayList<>();
        for (String name : this.beanFactory.getBeanNamesForAnnotation(LeaderRole.class)) {
            // Only lifecycles can be started; LeaderRoles, which refuses others, is not there to say so.
            if (this.beanFactory.getBean(name) instanceof SmartLifecycle lifecycle) {
                this.roles.add(lifecycle);
                roleBeans.add(name);
            }
        }
        @Nullable String method = UnlockedMethodsGuard.firstAnnotatedMethod(this.beanFactory, LeaderOnly.class);
        if (method == null && roleBeans.isEmpty()) {
            return;
        }
        logger.info("Distributed locks are disabled (redis-lock.enabled=false), and with them leader election: this "
                + "instance acts as the only one, which leads. "
                + ((method != null) ? "Methods annotated @LeaderOnly, such as " + method + ", run on every call"
                        : "No @LeaderOnly method")
                + "; " + (roleBeans.isEmpty() ? "no @LeaderRole bean" : "the @LeaderRole beans " + roleBeans
                        + " start with the context")
                + ". With several instances, each of them does the leader's work.");
    }

    @Override
    public void start() {
        this.running = true;
        this.roles.forEach(SmartLifecycle::start);
    }

    @Override
    public void stop() {
        this.running = false;
        for (SmartLifecycle role : this.roles) {
            if (role.isRunning()) {
                role.stop();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    @Override
    public int getPhase() {
        return LeaderCandidate.PHASE;
    }
}
