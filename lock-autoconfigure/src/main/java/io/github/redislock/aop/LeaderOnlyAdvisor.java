package io.github.redislock.aop;

import java.util.Set;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import io.github.redislock.DistributedLockTemplate;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.env.PropertyResolver;

/**
 * Applies {@code @LeaderOnly} to every bean method carrying it: the same interceptor as {@code @DistributedLock}'s,
 * over a template whose provider grants a call only while this instance leads the method's election (in the
 * starter: {@code io.github.redislock.leader.LeaderOnlyCalls}), and skips it otherwise. Ordered just outside the
 * lock advice ({@code redis-lock.order} - 1), so a method with both checks its leadership before it waits for a lock.
 */
public final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient LeaderOnlyOperationSource operations;

    private final transient DistributedLockInterceptor interceptor;

    private final transient Pointcut pointcut;

    /**
     * @param placeholders resolves {@code ${...}} in election names
     * @param defaultElection the election of {@code @LeaderOnly} without a name ({@code redis-lock.leader.name}),
     * {@code null} when there is none
     * @param template runs the calls granted: a template over the elections, looked up on first use
     * @param order where the check sits among other advice
     */
    public LeaderOnlyAdvisor(PropertyResolver placeholders, Supplier<@Nullable String> defaultElection,
            Supplier<DistributedLockTemplate> template, @Nullable BeanFactory beanFactory, int order) {
        this.operations = new LeaderOnlyOperationSource(placeholders, defaultElection);
        this.interceptor = new DistributedLockInterceptor(this.operations, template, beanFactory);
        this.pointcut = new DistributedLockAdvisor.LockedMethodPointcut(this.operations);
        setOrder(order);
    }

    /** The elections named by the {@code @LeaderOnly} methods parsed so far. */
    public Set<String> elections() {
        return this.operations.elections();
    }

    @Override
    public Pointcut getPointcut() {
        return this.pointcut;
    }

    @Override
    public Advice getAdvice() {
        return this.interceptor;
    }
}
