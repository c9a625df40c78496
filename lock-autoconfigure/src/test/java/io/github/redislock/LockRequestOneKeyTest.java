package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A request of one key given as a collection (the annotation's way) takes a shorter path than several keys: no
 * ordering, the caller's immutable list kept. The key is checked all the same.
 */
class LockRequestOneKeyTest {

    @Test
    void nullKeyAloneInACollectionIsRefusedAsALockKey() {
        assertThatThrownBy(() -> LockRequest.of(Collections.singletonList(null), Duration.ZERO, null))
            .isInstanceOf(LockException.class)
            .hasMessage("Lock key is null or empty");
    }

    @Test
    void keyWithAControlCharacterAloneInACollectionIsRefused() {
        List<String> keys = new ArrayList<>(List.of("order:\n42"));
        assertThatThrownBy(() -> LockRequest.of(keys, Duration.ZERO, null))
            .isInstanceOf(LockException.class)
            .hasMessageContaining("control character (U+000A at index 6)");
    }

    @Test
    void oneKeyFromAMutableCollectionIsCopied() {
        List<String> keys = new ArrayList<>(List.of("order:42"));
        LockRequest request = LockRequest.of(keys, Duration.ZERO, null);
        keys.set(0, "order:43");
        assertThat(request.keys()).containsExactly("order:42");
    }
}
