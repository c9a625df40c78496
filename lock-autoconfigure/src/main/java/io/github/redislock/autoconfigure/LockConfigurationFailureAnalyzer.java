package io.github.redislock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a start-up stopped because the application's locks could not be set up as declared. */
final class LockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LockConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
