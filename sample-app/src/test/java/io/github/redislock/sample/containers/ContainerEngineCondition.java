package io.github.redislock.sample.containers;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Skips container tests, visibly, where there is no container engine; fails them where one was promised. See
 * {@link RequiresContainerEngine}.
 */
final class ContainerEngineCondition implements ExecutionCondition {

    static final String REQUIRED_VARIABLE = "REDIS_LOCK_CONTAINER_TESTS";

    private static final PrintStream CONSOLE = new PrintStream(new FileOutputStream(FileDescriptor.err), true,
            StandardCharsets.UTF_8);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (DockerClientFactory.instance().isDockerAvailable()) {
            return ConditionEvaluationResult.enabled("a container engine is available");
        }
        if ("required".equals(System.getenv(REQUIRED_VARIABLE))) {
            throw new IllegalStateException(REQUIRED_VARIABLE + "=required, but Testcontainers finds no container "
                    + "engine (DOCKER_HOST=" + System.getenv("DOCKER_HOST") + "): see .ci/provision-podman");
        }
        String reason = "SKIPPED " + context.getDisplayName() + ": no container engine found (Docker, or podman "
                + "through DOCKER_HOST); these Redis-in-a-container tests did not run";
        // On the build's console, not only in the report: Surefire keeps the tests' System.err in a file, but
        // passes what the test JVM writes to its own standard error straight through.
        CONSOLE.println("[WARNING] " + reason);
        CONSOLE.flush();
        return ConditionEvaluationResult.disabled(reason);
    }
}
