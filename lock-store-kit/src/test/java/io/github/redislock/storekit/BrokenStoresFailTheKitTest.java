package io.github.redislock.storekit;

import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.test.InMemoryStoreFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The kit can fail: run on deliberately broken stores (the in-memory store with one promise broken by a
 * decorator), exactly the checks of the broken promise fail, and the ones that do not depend on it pass, as the
 * torture suite keeps its own sabotage runs. The broken suites run only through this test ({@link SabotageRun}),
 * never on their own.
 */
class BrokenStoresFailTheKitTest {

    /** What a working store's checks need that neither sabotage touches: the kit itself runs. */
    private static final List<String> UNRELATED = List.of("theHoldingThreadEntersAgainOnTheSameLockUntilTheOutermostRelease",
            "aNonReentrantRequestNeitherEntersNorIsEntered", "aWaitThatTimesOutLeavesNothingBehind",
            "anInterruptedWaitLeavesNothingBehind", "everyApplicationLearnsWhoHoldsAKey");

    @Test
    void aReleaseThatDoesNotCompareFailsTheChecksOfReleasesNoLongerOurs() {
        Outcome outcome = run(ReleaseWithoutCompare.class);
        assertThat(outcome.failed()).contains("theReleaseOfALockNoLongerOursLeavesTheNextHoldersLockAlone",
                "aFixedLeaseEndsTheLockAndItsReleaseReportsTheLoss");
        assertThat(outcome.passed()).containsAll(UNRELATED);
    }

    @Test
    void fencingTokensThatDoNotGrowFailTheFencingChecks() {
        Outcome outcome = run(ShrinkingFences.class);
        assertThat(outcome.failed()).contains("applicationsAndTheirThreadsNeverOverlapAndFencesGrowInEntryOrder",
                "fencesGrowFromHolderToHolderAcrossApplications",
                "requestsNamingTheSameKeysInEitherOrderNeverDeadlock",
                "aWaiterGetsInNoEarlierThanHoldAtLeastAfterTheHolderTookTheKey",
                "theReleaseOfALockNoLongerOursLeavesTheNextHoldersLockAlone",
                "aFixedLeaseEndsTheLockAndItsReleaseReportsTheLoss",
                "aYieldedLeadershipPassesToAnotherCandidateWithALargerTerm",
                "aStoppedLeaderHandsOverToAnotherCandidate", "aLeaderWhoseLockTheStoreLosesIsRevokedAsLost");
        assertThat(outcome.passed()).containsAll(UNRELATED);
    }

    @Test
    void aSemaphoreThatAdmitsOneMoreFailsThePermitChecks() {
        Outcome outcome = run(OneMorePermit.class);
        assertThat(outcome.failed()).contains("exactlyItsPermitsAreHeldAtOnceAndAReleasedOneIsTakenAgain");
        assertThat(outcome.passed()).containsAll(UNRELATED).contains("readersShareAKeyAndAWriterWaitsForThemAll");
    }

    @Test
    void readersThatDoNotShareFailTheReadChecks() {
        Outcome outcome = run(ReadersAlone.class);
        assertThat(outcome.failed()).contains("readersShareAKeyAndAWriterWaitsForThemAll",
                "multiKeyRequestsOfEitherModeAreAllOrNothing");
        assertThat(outcome.passed()).containsAll(UNRELATED).contains("exactlyItsPermitsAreHeldAtOnceAndAReleasedOneIsTakenAgain");
    }

    private static Outcome run(Class<? extends LockStoreContract> suite) {
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(suite))
            .configurationParameter(SabotageRun.PARAMETER, "true").execute().testEvents();
        // Each failure is an assertion of the kit, not a fixture that could not start.
        tests.failed().stream().forEach((event) -> assertThat(thrown(event)).as(name(event)).isInstanceOf(AssertionError.class));
        return new Outcome(tests.failed().stream().map(BrokenStoresFailTheKitTest::name).toList(),
                tests.succeeded().stream().map(BrokenStoresFailTheKitTest::name).toList());
    }

    private static String name(Event event) {
        return ((MethodSource) event.getTestDescriptor().getSource().orElseThrow()).getMethodName();
    }

    private static Throwable thrown(Event event) {
        return event.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable).orElseThrow();
    }

    private record Outcome(List<String> failed, List<String> passed) {
    }

    /** Runs a broken suite only when this test asks for it: any other run (an IDE, a pattern) skips it. */
    static final class SabotageRun implements ExecutionCondition {

        static final String PARAMETER = "redis-lock.store-kit.sabotage";

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(PARAMETER).filter("true"::equals).isPresent()
                    ? ConditionEvaluationResult.enabled("run by BrokenStoresFailTheKitTest")
                    : ConditionEvaluationResult.disabled("a broken store, run only by BrokenStoresFailTheKitTest");
        }
    }

    /**
     * A release that deletes the key whoever holds it and always says it was ours: the classic {@code DEL} of a
     * lock without compare-and-delete.
     */
    @ExtendWith(SabotageRun.class)
    static class ReleaseWithoutCompare extends LockStoreContract {

        @Override
        protected StoreFixture fixture() {
            InMemoryStoreFixture[] fixture = new InMemoryStoreFixture[1];
            fixture[0] = new InMemoryStoreFixture("kit:", (store) -> new ForwardingStore(store) {

                @Override
                protected boolean release(Lock lock, long keepMillis) {
                    if (!super.release(lock, keepMillis)) {
                        fixture[0].loseLock(this, lock.key());
                    }
                    return true;
                }
            });
            return fixture[0];
        }
    }

    /** A take that hands out fencing tokens going down (and says so when asked), instead of up. */
    @ExtendWith(SabotageRun.class)
    static class ShrinkingFences extends LockStoreContract {

        @Override
        protected StoreFixture fixture() {
            UnaryOperator<LockStore> shrinking = (store) -> new ForwardingStore(store) {

                @Override
                protected long fencingToken(StoreLock taken) {
                    return -taken.fencingToken();
                }

                @Override
                public LockInspection inspect(String key) {
                    LockInspection seen = super.inspect(key);
                    return new LockInspection(seen.key(), seen.state(), seen.holder(),
                            (seen.fencingToken() != null) ? -seen.fencingToken() : null, seen.since(),
                            seen.leaseRemaining(), seen.waiting());
                }
            };
            return new InMemoryStoreFixture("kit:", shrinking);
        }
    }

    /** A semaphore of N that keeps one permit more than asked: N + 1 holders at once. */
    @ExtendWith(SabotageRun.class)
    static class OneMorePermit extends LockStoreContract {

        @Override
        protected StoreFixture fixture() {
            return new InMemoryStoreFixture("kit:", (store) -> new ForwardingStore(store) {

                @Override
                protected Sharing sharing(Sharing asked) {
                    return asked.isSemaphore() ? Sharing.permits(asked.permits() + 1) : asked;
                }
            });
        }
    }

    /** Read locks kept as write locks: every reader alone. */
    @ExtendWith(SabotageRun.class)
    static class ReadersAlone extends LockStoreContract {

        @Override
        protected StoreFixture fixture() {
            return new InMemoryStoreFixture("kit:", (store) -> new ForwardingStore(store) {

                @Override
                protected Sharing sharing(Sharing asked) {
                    return asked.isRead() ? Sharing.EXCLUSIVE : asked;
                }
            });
        }
    }
}
