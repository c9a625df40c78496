package io.github.redislock.zookeeper;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.storekit.CandidateProcess;

/**
 * A leader candidate on ZooKeeper in a JVM of its own ({@link CandidateProcess}).
 * <p>
 * Arguments: connect-string session-timeout-ms base-path election lease-ms
 */
public final class ZooKeeperCandidateMain {

    private ZooKeeperCandidateMain() {
    }

    public static void main(String[] args) throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.builder().connectString(args[0])
            .sessionTimeoutMs(Integer.parseInt(args[1])).connectionTimeoutMs(2000).retryPolicy(new RetryOneTime(100))
            .build()) {
            client.start();
            try (LockEngine engine = new LockEngine(new ZooKeeperLockStore(client, args[2], Duration.ofSeconds(2)),
                    Duration.ofMillis(Long.parseLong(args[4])), LockLossListener.NONE)) {
                CandidateProcess.serve(args[3], engine);
            }
        }
    }
}
