package io.github.redislock.test;

import io.github.redislock.LockContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestLocksTest {

    /** A job that must never run unlocked, as a ShedLock user writes it with {@code LockAssert.assertLocked()}. */
    static int report() {
        LockContext.assertHeld();
        return 3;
    }

    @Test
    void aJobCalledDirectlyRunsUnderARealLockThatItsAssertionSees() {
        TestLocks.runUnder("job:report", TestLocksTest::report);
        assertThat(TestLocks.callUnder("job:report", () -> LockContext.assertHeld().key())).isEqualTo("job:report");
        assertThat(TestLocks.callUnder("job:report", TestLocksTest::report)).isEqualTo(3);
    }

    @Test
    void theAssertionIsNotSwitchedOffOutsideIt() {
        assertThatThrownBy(TestLocksTest::report).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Not running under a distributed lock");
    }
}
