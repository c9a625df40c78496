package io.github.redislock.modelcheck;

import java.util.List;

import io.github.redislock.test.InMemoryBackend;
import io.github.redislock.testsupport.RedisServer;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stateful properties of the store SPI under the engine, on lock-test's in-memory store and on a real Redis: random
 * sequences of takes (renewed or fixed, nested when held), releases, renewal rounds, the backend forgetting the key,
 * time passing and replies coming late, by two applications; after every step the rules of {@link LockModel} hold.
 * jqwik shrinks a failing sequence to a shortest one. Tries: {@code jqwik.tries.default} ({@code ./verify} runs the
 * module's default; {@code -Dmodelcheck.tries=500} runs longer, see the module's pom).
 */
class LockStateProperties {

    private static RedisServer redis;

    @BeforeContainer
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterContainer
    static void stopRedis() {
        redis.close();
    }

    @Property
    void inMemory(@ForAll("sequences") List<Action> actions) {
        try (LockModel model = new LockModel(new InMemoryBackend(), Actions.APPLICATIONS)) {
            assertThat(model.run(actions)).isEmpty();
        }
    }

    @Property
    void onRedis(@ForAll("sequences") List<Action> actions) {
        try (LockModel model = new LockModel(new RedisBackend(redis), Actions.APPLICATIONS)) {
            assertThat(model.run(actions)).isEmpty();
        }
    }

    /**
     * The properties are not blind: with a defect seeded into the stores (a release that says it released the key and
     * leaves it), some of a hundred random sequences break a rule, on either backend.
     */
    @Example
    void theRulesCatchAStoreWhoseReleasesLeaveTheKey() {
        List<List<Action>> samples = Actions.sequences().sampleStream().limit(100).toList();
        assertThat(samples).anySatisfy((actions) -> {
            try (LockModel model = new LockModel(new InMemoryBackend(), Actions.APPLICATIONS).seedLostReleases()) {
                assertThat(model.run(actions)).anyMatch((rule) -> rule.startsWith("nothing is held, yet the backend keeps"));
            }
        });
        assertThat(samples).anySatisfy((actions) -> {
            try (LockModel model = new LockModel(new RedisBackend(redis), Actions.APPLICATIONS).seedLostReleases()) {
                assertThat(model.run(actions)).anyMatch((rule) -> rule.startsWith("nothing is held, yet the backend keeps"));
            }
        });
    }

    @Provide
    Arbitrary<List<Action>> sequences() {
        return Actions.sequences();
    }
}
