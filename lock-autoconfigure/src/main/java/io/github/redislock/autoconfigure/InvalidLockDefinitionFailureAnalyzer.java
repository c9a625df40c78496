package io.github.redislock.autoconfigure;

import io.github.redislock.InvalidLockDefinitionException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a start-up stopped by a bad {@code @DistributedLock} declaration. */
final class InvalidLockDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockDefinitionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockDefinitionException cause) {
        String description = cause.getMessage();
        String action = "Fix the @DistributedLock annotation on " + cause.getMethod() + ". Keys refer to parameters "
                + "as #name (short form, e.g. \"sku:#id:lock\") or #{SpEL} (e.g. \"sku:#{#order.sku}:lock\"); "
                + "durations are written like \"500ms\", \"2s\" or \"PT2S\".";
        return new FailureAnalysis(description, action, cause);
    }
}
