package io.github.redislock;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The package rules of this module's main classes: the engine knows no store, no store reaches into another (the
 * two Redis stores share only {@code redis.support}), and the endpoint, the metrics, the API and the annotation
 * front end know no store; only the wiring ({@code autoconfigure}) picks one. A store outside this module is named
 * by its package all the same (ZooKeeper; the in-memory store of {@code redis-lock-test}): a dependency on a class
 * counts whether or not that class is on this class path. The rules of those modules' own classes are their
 * {@code ArchitectureTest}s. Plain JUnit calling {@code check}, so that no ArchUnit test engine has to match the
 * JUnit of each Boot line.
 */
@LineIndependent
class ArchitectureTest {

    private static final String ENGINE = "io.github.redislock.engine..";

    private static final String REDIS = "io.github.redislock.redis..";

    private static final String REDIS_SUPPORT = "io.github.redislock.redis.support..";

    private static final String REDLOCK = "io.github.redislock.redlock..";

    private static final String ZOOKEEPER = "io.github.redislock.zookeeper..";

    /** The in-memory store, in {@code redis-lock-test}. */
    private static final String IN_MEMORY = "io.github.redislock.test..";

    /**
     * The main classes only, as tests may use any store (the build directory differs per Boot line, the name
     * {@code test-classes} does not).
     */
    private static final JavaClasses CLASSES = new ClassFileImporter()
        .withImportOption((location) -> !location.contains("/test-classes/"))
        .importPackages("io.github.redislock");

    @Test
    void theEngineUsesNoStore() {
        noClasses().that().resideInAPackage(ENGINE)
            .should().dependOnClassesThat().resideInAnyPackage(REDIS, REDLOCK, ZOOKEEPER, IN_MEMORY)
            .because("the engine is store-neutral: stores plug in under it through LockStore")
            .check(CLASSES);
    }

    @Test
    void theSingleRedisStoreUsesNoOtherStore() {
        noClasses().that().resideInAPackage(REDIS).and().resideOutsideOfPackage(REDIS_SUPPORT)
            .should().dependOnClassesThat().resideInAnyPackage(REDLOCK, ZOOKEEPER, IN_MEMORY)
            .because("what it shares with Redlock lives in redis.support")
            .check(CLASSES);
    }

    @Test
    void redlockUsesNoOtherStoreButTheSharedRedisSupport() {
        noClasses().that().resideInAPackage(REDLOCK)
            .should().dependOnClassesThat(resideInAPackage(REDIS).and(resideOutsideOfPackage(REDIS_SUPPORT)))
            .orShould().dependOnClassesThat().resideInAnyPackage(ZOOKEEPER, IN_MEMORY)
            .because("what it shares with the single-Redis store lives in redis.support")
            .check(CLASSES);
    }

    @Test
    void theSharedRedisSupportUsesNeitherRedisStore() {
        noClasses().that().resideInAPackage(REDIS_SUPPORT)
            .should().dependOnClassesThat(resideInAPackage(REDIS).and(resideOutsideOfPackage(REDIS_SUPPORT)))
            .orShould().dependOnClassesThat().resideInAnyPackage(REDLOCK, ZOOKEEPER, IN_MEMORY)
            .because("both Redis stores depend on it, so it may depend on neither")
            .check(CLASSES);
    }

    @Test
    void theEndpointAndTheMetricsUseNoStore() {
        noClasses().that().resideInAnyPackage("io.github.redislock.actuate..", "io.github.redislock.metrics..")
            .should().dependOnClassesThat().resideInAnyPackage(REDIS, REDLOCK, ZOOKEEPER, IN_MEMORY)
            .because("they read the engine, whichever store is under it")
            .check(CLASSES);
    }

    @Test
    void theApiAndTheAnnotationFrontEndUseNoStore() {
        noClasses().that().resideInAnyPackage("io.github.redislock", "io.github.redislock.annotation..",
                "io.github.redislock.aop..", "io.github.redislock.observation..", "io.github.redislock.tx..")
            .should().dependOnClassesThat().resideInAnyPackage(REDIS, REDLOCK, ZOOKEEPER, IN_MEMORY)
            .because("they work through LockProvider, whichever store is under it; only autoconfigure picks one")
            .check(CLASSES);
    }
}
