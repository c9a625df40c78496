package io.github.redislock.aop;

import io.github.redislock.InvalidLockDefinitionException;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** A bad declaration stops the application context at start-up, naming the method and what is wrong. */
class StartupValidationTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    @Test
    void unknownParameterName() {
        assertStartupFails(UnknownParameter.class, "UnknownParameter#lock", "sku:#idd:lock", "'#idd'");
    }

    @Test
    void malformedExpression() {
        assertStartupFails(MalformedExpression.class, "MalformedExpression#lock", "sku:#{#id +}:lock");
    }

    @Test
    void unparsableDuration() {
        assertStartupFails(BadDuration.class, "BadDuration#lock", "waitTime 'soon'");
    }

    @Test
    void unresolvablePlaceholder() {
        assertStartupFails(MissingPlaceholder.class, "MissingPlaceholder#lock", "${no.such.property}");
    }

    @Test
    void zeroLease() {
        assertStartupFails(ZeroLease.class, "ZeroLease#lock", "leaseTime must be at least 1ms");
    }

    @Test
    void unparsableHoldAtLeast() {
        assertStartupFails(BadHoldAtLeast.class, "BadHoldAtLeast#lock", "holdAtLeast 'a while' is not a duration");
    }

    @Test
    void negativeHoldAtLeast() {
        assertStartupFails(NegativeHoldAtLeast.class, "NegativeHoldAtLeast#lock", "holdAtLeast must not be negative");
    }

    @Test
    void unresolvableHoldAtLeastPlaceholder() {
        assertStartupFails(MissingHoldAtLeastPlaceholder.class, "MissingHoldAtLeastPlaceholder#lock", "holdAtLeast",
                "${no.such.minimum}");
    }

    @Test
    void fixedLeaseShorterThanHoldAtLeastNamesBoth() {
        assertStartupFails(LeaseShorterThanMinimum.class, "LeaseShorterThanMinimum#lock", "leaseTime '500ms'",
                "shorter than holdAtLeast '${job.minimum:800ms}' (PT0.8S)");
    }

    @Test
    void holdAtLeastResolvesPlaceholders() {
        LockContexts.runner(redis).withPropertyValues("job.minimum=400ms").withBean(LeaseShorterThanMinimum.class)
                .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void permitsBelowOneNameTheMethod() {
        assertStartupFails(NoPermits.class, "NoPermits#lock", "permits must be at least 1", ": 0");
    }

    @Test
    void permitsWithAReadLockNameTheMethod() {
        assertStartupFails(CountedReadLock.class, "CountedReadLock#lock", "permits = 3 with mode = READ",
                "a read lock has no permit count");
    }

    @Test
    void aSemaphoreAndAReadLockStartFine() {
        LockContexts.runner(redis).withBean(SharedDeclarations.class)
                .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void skipOnPrimitive() {
        assertStartupFails(SkipOnPrimitive.class, "SkipOnPrimitive#count", "primitive int");
    }

    @Test
    void missingFallback() {
        assertStartupFails(MissingFallback.class, "MissingFallback#lock", "fallbackMethod 'nope' not found");
    }

    @Test
    void fallbackWithWrongReturnType() {
        assertStartupFails(WrongFallbackType.class, "WrongFallbackType#lock", "not assignable");
    }

    @Test
    void fallbackThatIsItselfLockedWouldRunUnlocked() {
        assertStartupFails(LockedFallback.class, "LockedFallback#lock", "fallbackMethod 'lock'", "itself locked");
        assertStartupFails(OtherLockedFallback.class, "OtherLockedFallback#lock", "fallbackMethod 'other'",
                "itself locked");
    }

    @Test
    void finalMethodThatCouldNotBeIntercepted() {
        assertStartupFails(FinalMethod.class, "FinalMethod#lock", "cannot be intercepted");
    }

    @Test
    void unknownBean() {
        assertStartupFails(UnknownBean.class, "UnknownBean#lock", "'@nosuchbean'");
    }

    @Test
    void everyAnnotatedMethodIsCheckedNotOnlyTheFirst() {
        assertStartupFails(SecondMethodBad.class, "SecondMethodBad#second", "'#missing'");
    }

    @Test
    void failureAnalyzerExplainsIt() {
        LockContexts.runner(redis).withBean(UnknownParameter.class).run((context) -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("UnknownParameter#lock").contains("sku:#idd:lock");
            assertThat(analysis.getAction()).contains("#name");
        });
    }

    private static FailureAnalysis analyze(Throwable failure) {
        // Only analyzers that need no constructor arguments load here; ours is one of them.
        for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
                }))) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null && analysis.getDescription().contains("@DistributedLock")) {
                return analysis;
            }
        }
        return null;
    }

    private static void assertStartupFails(Class<?> bean, String... fragments) {
        ContextConsumer<AssertableApplicationContext> check = (context) -> {
            assertThat(context).hasFailed();
            Throwable root = context.getStartupFailure();
            while (root != null && !(root instanceof InvalidLockDefinitionException)) {
                root = root.getCause();
            }
            assertThat(root).as("InvalidLockDefinitionException in the cause chain of %s", context.getStartupFailure()).isNotNull();
            for (String fragment : fragments) {
                assertThat(root.getMessage()).contains(fragment);
            }
        };
        LockContexts.runner(redis).withBean(bean).run(check);
    }

    public static class UnknownParameter {

        @DistributedLock(key = "sku:#idd:lock")
        public void lock(long id) {
        }
    }

    public static class MalformedExpression {

        @DistributedLock(key = "sku:#{#id +}:lock")
        public void lock(long id) {
        }
    }

    public static class BadDuration {

        @DistributedLock(key = "k", waitTime = "soon")
        public void lock() {
        }
    }

    public static class MissingPlaceholder {

        @DistributedLock(key = "k", waitTime = "${no.such.property}")
        public void lock() {
        }
    }

    public static class BadHoldAtLeast {

        @DistributedLock(key = "k", holdAtLeast = "a while")
        public void lock() {
        }
    }

    public static class NegativeHoldAtLeast {

        @DistributedLock(key = "k", holdAtLeast = "-1s")
        public void lock() {
        }
    }

    public static class MissingHoldAtLeastPlaceholder {

        @DistributedLock(key = "k", holdAtLeast = "${no.such.minimum}")
        public void lock() {
        }
    }

    public static class LeaseShorterThanMinimum {

        @DistributedLock(key = "k", leaseTime = "500ms", holdAtLeast = "${job.minimum:800ms}")
        public void lock() {
        }
    }

    public static class NoPermits {

        @DistributedLock(key = "k", permits = 0)
        public void lock() {
        }
    }

    public static class CountedReadLock {

        @DistributedLock(key = "k", permits = 3, mode = io.github.redislock.LockMode.READ)
        public void lock() {
        }
    }

    public static class SharedDeclarations {

        @DistributedLock(key = "partner:api", permits = 5)
        public void call() {
        }

        @DistributedLock(key = "doc:#id", mode = io.github.redislock.LockMode.READ)
        public void read(String id) {
        }
    }

    public static class ZeroLease {

        @DistributedLock(key = "k", leaseTime = "0s")
        public void lock() {
        }
    }

    public static class SkipOnPrimitive {

        @DistributedLock(key = "k", onFailure = OnLockFailure.SKIP)
        public int count() {
            return 1;
        }
    }

    public static class MissingFallback {

        @DistributedLock(key = "k", fallbackMethod = "nope")
        public String lock() {
            return "";
        }
    }

    public static class LockedFallback {

        @DistributedLock(key = "k", fallbackMethod = "lock")
        public String lock() {
            return "";
        }
    }

    public static class OtherLockedFallback {

        @DistributedLock(key = "k", fallbackMethod = "other")
        public String lock() {
            return "";
        }

        @DistributedLock(key = "j")
        public String other() {
            return "";
        }
    }

    public static class WrongFallbackType {

        @DistributedLock(key = "k", fallbackMethod = "other")
        public String lock() {
            return "";
        }

        public Integer other() {
            return 1;
        }
    }

    public static class FinalMethod {

        @DistributedLock(key = "k")
        public final void lock() {
        }
    }

    public static class UnknownBean {

        @DistributedLock(key = "#{@nosuchbean.name}")
        public void lock() {
        }
    }

    public static class SecondMethodBad {

        @DistributedLock(key = "first:#id")
        public void first(long id) {
        }

        @DistributedLock(key = "second:#missing")
        public void second(long id) {
        }
    }
}
