package io.github.redislock.zookeeper;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The ZooKeeper store, its wiring included, reaches into no other store: it stands on the engine, the public API
 * and the shared auto-configuration only. The other modules' rules are their {@code ArchitectureTest}s. Plain
 * JUnit calling {@code check}, so that no ArchUnit test engine has to match the JUnit of each Boot line.
 */
@LineIndependent
class ArchitectureTest {

    /** This module's main classes (the build directory differs per Boot line, the name does not). */
    private static final JavaClasses CLASSES = new ClassFileImporter()
        .withImportOption((location) -> !location.contains("/test-classes/"))
        .importPackages("io.github.redislock.zookeeper");

    @Test
    void theZooKeeperStoreUsesNoOtherStore() {
        noClasses().that().resideInAPackage("io.github.redislock.zookeeper..")
            .should().dependOnClassesThat().resideInAnyPackage("io.github.redislock.redis..",
                    "io.github.redislock.redlock..", "io.github.redislock.test..")
            .because("a store stands on the engine alone; what stores share belongs in the engine")
            .check(CLASSES);
    }
}
