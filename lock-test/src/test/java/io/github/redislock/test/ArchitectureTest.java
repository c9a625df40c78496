package io.github.redislock.test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The in-memory store, and everything else this module ships (the in-process provider, the recorder, the
 * assertions, which read Redis through Spring Data Redis alone), reaches into no store of the library: it stands on
 * the engine, the public API and the shared auto-configuration only. The other modules' rules are their
 * {@code ArchitectureTest}s. Plain JUnit calling {@code check}, so that no ArchUnit test engine has to match the
 * JUnit of each Boot line.
 */
@LineIndependent
class ArchitectureTest {

    /** This module's main classes (the build directory differs per Boot line, the name does not). */
    private static final JavaClasses CLASSES = new ClassFileImporter()
        .withImportOption((location) -> !location.contains("/test-classes/"))
        .importPackages("io.github.redislock.test");

    @Test
    void theInMemoryStoreUsesNoOtherStore() {
        noClasses().that().resideInAPackage("io.github.redislock.test..")
            .should().dependOnClassesThat().resideInAnyPackage("io.github.redislock.redis..",
                    "io.github.redislock.redlock..", "io.github.redislock.zookeeper..")
            .because("a store stands on the engine alone; the key rules it shares with Redis are the engine's KeyRules")
            .check(CLASSES);
    }
}
