package io.github.redislock.zookeeper.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a ZooKeeper lock setting that stopped the start-up: a connect string or base path that is not valid. */
final class ZooKeeperConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<ZooKeeperConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ZooKeeperConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
