package io.github.redislock.storekit;

import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.DiscoverySelector;
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
import io.github.redislock.testsupport.LineIndependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * The kit can fail: run on deliberately broken stores (the in-memory store with one promise broken by a
 * decorator), the checks of the broken promise fail, and checks that do not depend on it pass, as the torture suite
 * keeps its own sabotage runs. Each sabotage runs just those checks (the kit's others would take a minute more per
 * store and show nothing about the sabotage), and exactly the expected ones fail: a failure elsewhere would mean the
 * kit itself broke. The broken suites run only through this test ({@link SabotageRun}), never on their own.
 */
@LineIndependent
class BrokenStoresFailTheKitTest {

    /** What a working store's checks need that neither sabotage touches: the kit itself runs. */
    private static final List<String> UNRELATED = List.of("theHoldingThreadEntersAgainOnTheSameLockUntilTheOutermostRelease",
            "aNonReentrantRequestNeitherEntersNorIsEntered", "aWaitThatTimesOutLeavesNothingBehind",
            "anInterruptedWaitLeavesNothingBehind", "everyApplicationLearnsWhoHoldsAKey");

    @Test
    void aReleaseThatDoesNotCompareFailsTheChecksOfReleasesNoLongerOurs() {
        assertOnlyFailing(ReleaseWithoutCompare.class, List.of("theReleaseOfALockNoLongerOursLeavesTheNextHoldersLockAlone",
                "aFixedLeaseEndsTheLockAndItsReleaseReportsTheLoss"), UNRELATED);
    }

    @Test
    void fencingTokensThatDoNotGrowFailTheFencingChecks() {
        assertOnlyFailing(ShrinkingFences.class, List.of("applicationsAndTheirThreadsNeverOverlapAndFencesGrowInEntryOrder",
                "fencesGrowFromHolderToHolderAcrossApplications",
                "requestsNamingTheSameKeysInEitherOrderNeverDeadlock",
                "aWaiterGetsInNoEarlierThanHoldAtLeastAfterTheHolderTookTheKey",
                "theReleaseOfALockNoLongerOursLeavesTheNextHoldersLockAlone",
                "aFixedLeaseEndsTheLockAndItsReleaseReportsTheLoss",
                "aYieldedLeadershipPassesToAnotherCandidateWithALargerTerm",
                "aStoppedLeaderHandsOverToAnotherCandidate", "aLeaderWhoseLockTheStoreLosesIsRevokedAsLost"), UNRELATED);
    }

    @Test
    void aSemaphoreThatAdmitsOneMoreFailsThePermitChecks() {
        assertOnlyFailing(OneMorePermit.class, List.of("exactlyItsPermitsAreHeldAtOnceAndAReleasedOneIsTakenAgain"),
                with(UNRELATED, "readersShareAKeyAndAWriterWaitsForThemAll"));
    }

    @Test
    void readersThatDoNotShareFailTheReadChecks() {
        assertOnlyFailing(ReadersAlone.class, List.of("readersShareAKeyAndAWriterWaitsForThemAll",
                "multiKeyRequestsOfEitherModeAreAllOrNothing"),
                with(UNRELATED, "exactlyItsPermitsAreHeldAtOnceAndAReleasedOneIsTakenAgain"));
    }

    /** Runs the given checks of a broken suite: the expected ones must fail, by an assertion, and the others pass. */
    private static void assertOnlyFailing(Class<? extends LockStoreContract> suite, List<String> failing,
            List<String> passing) {
        List<DiscoverySelector> checks = Stream.concat(failing.stream(), passing.stream())
            .map((check) -> (DiscoverySelector) selectMethod(suite, check))
            .toList();
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(checks.toArray(DiscoverySelector[]::new))
            .configurationParameter(SabotageRun.PARAMETER, "true").execute().testEvents();
        // Each failure is an assertion of the kit, not a fixture that could not start.
        tests.failed().stream().forEach((event) -> assertThat(thrown(event)).as(name(event)).isInstanceOf(AssertionError.class));
        assertThat(tests.failed().stream().map(BrokenStoresFailTheKitTest::name)).as("failed")
            .containsExactlyInAnyOrderElementsOf(failing);
        assertThat(tests.succeeded().stream().map(BrokenStoresFailTheKitTest::name)).as("passed")
            .containsExactlyInAnyOrderElementsOf(passing);
    }

    private static List<String> with(List<String> checks, String check) {
        return Stream.concat(checks.stream(), Stream.of(check)).toList();
    }

    private static String name(Event event) {
        return ((MethodSource) event.getTestDescriptor().getSource().orElseThrow()).getMethodName();
    }

    private static Throwable thrown(Event event) {
        return event.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable).orElseThrow();
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
