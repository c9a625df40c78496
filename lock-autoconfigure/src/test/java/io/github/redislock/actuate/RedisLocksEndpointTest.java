package io.github.redislock.actuate;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.actuate.RedisLocksEndpoint.HeldLockDescriptor;
import io.github.redislock.actuate.RedisLocksEndpoint.LockViewDescriptor;
import io.github.redislock.actuate.RedisLocksEndpoint.RedisLocksDescriptor;
import io.github.redislock.autoconfigure.RedisLocksEndpointAutoConfiguration;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.support.LockContexts;
import io.github.redislock.support.RenewalFaults;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TaskThreads;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The {@code redislocks} endpoint on a real Redis, and when it is there at all. */
class RedisLocksEndpointTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static ApplicationContextRunner runner(RedisServer server) {
        return LockContexts.runner(server)
            .withConfiguration(AutoConfigurations.of(RedisLocksEndpointAutoConfiguration.class))
            .withPropertyValues("redis-lock.key-prefix=t:", "redis-lock.lease-time=30s",
                    "management.endpoints.web.exposure.include=redislocks",
                    "management.endpoint.redislocks.show-keys=always");
    }

    @Test
    void keysAreMaskedUnlessShowKeysAllowsThem() {
        runner(redis.server()).withPropertyValues("management.endpoint.redislocks.show-keys=never").run((context) -> {
            try (LockHandle held = context.getBean(DistributedLockTemplate.class)
                .acquire(LockRequest.of("user:alice@example.com", Duration.ZERO, null))) {
                RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
                assertThat(endpoint.locks().held()).extracting(HeldLockDescriptor::key).containsExactly("******");
            }
        });
        runner(redis.server()).withPropertyValues("management.endpoint.redislocks.show-keys=when-authorized",
                "management.endpoint.redislocks.roles=OPS").run((context) -> {
                    try (LockHandle held = context.getBean(DistributedLockTemplate.class)
                        .acquire(LockRequest.of("user:alice@example.com", Duration.ZERO, null))) {
                        RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
                        assertThat(endpoint.locks(SecurityContext.NONE).held().get(0).key()).isEqualTo("******");
                        assertThat(endpoint.locks(withRole("DEV")).held().get(0).key()).isEqualTo("******");
                        assertThat(endpoint.locks(withRole("OPS")).held().get(0).key())
                            .isEqualTo("t:user:alice@example.com");
                    }
                });
    }

    @Test
    void keysAreMaskedByDefault() {
        LockContexts.runner(redis.server())
            .withConfiguration(AutoConfigurations.of(RedisLocksEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=redislocks")
            .run((context) -> {
                try (LockHandle held = context.getBean(DistributedLockTemplate.class)
                    .acquire(LockRequest.of("user:alice", Duration.ZERO, null))) {
                    assertThat(context.getBean(RedisLocksEndpoint.class).locks().held().get(0).key())
                        .isEqualTo("******");
                }
            });
    }

    @Test
    void theHolderViewEchoesTheKeyOnlyAsShowKeysAllows() {
        runner(redis.server()).withPropertyValues("spring.application.name=orders",
                "management.endpoint.redislocks.show-keys=when-authorized", "management.endpoint.redislocks.roles=OPS")
            .run((context) -> {
                try (LockHandle held = context.getBean(DistributedLockTemplate.class)
                    .acquire(LockRequest.of("user:alice@example.com", Duration.ZERO, null))) {
                    RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
                    await().atMost(Duration.ofSeconds(10))
                        .until(() -> endpoint.lock("user:alice@example.com").holder().known());
                    LockViewDescriptor masked = endpoint.lock(withRole("DEV"), "user:alice@example.com");
                    assertThat(masked.key()).isEqualTo("******");
                    assertThat(masked.held()).isTrue();
                    assertThat(masked.holder().application()).isEqualTo("orders");
                    assertThat(masked.fencingToken()).isEqualTo(held.fencingToken());
                    assertThat(endpoint.lock(SecurityContext.NONE, "user:alice@example.com").key()).isEqualTo("******");
                    assertThat(endpoint.lock(withRole("OPS"), "user:alice@example.com").key())
                        .isEqualTo("t:user:alice@example.com");
                }
            });
    }

    @Test
    void theHolderViewRefusesANameTheLockRefuses() {
        runner(redis.server()).run((context) -> {
            RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
            assertThatThrownBy(() -> endpoint.lock("a~lock~instance:x"))
                .isInstanceOf(InvalidEndpointRequestException.class);
            assertThat(endpoint.lock(SecurityContext.NONE, "a", "b").key()).isEqualTo("t:a/b");
        });
    }

    private static SecurityContext withRole(String role) {
        Principal principal = () -> "someone";
        return new SecurityContext() {

            @Override
            public Principal getPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String name) {
                return role.equals(name);
            }
        };
    }

    @Test
    void showsALockKeptAfterItsWorkEndedAsHeldByNoThreadUntilItExpires() {
        runner(redis.server()).run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            Instant before = Instant.now();
            LockHandle handle = template.acquire(LockRequest.of("job", Duration.ZERO, null)
                    .holdAtLeast(Duration.ofSeconds(30)));
            handle.close();
            RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
            assertThat(endpoint.locks().held()).singleElement().satisfies((kept) -> {
                assertThat(kept.key()).isEqualTo("t:job");
                assertThat(kept.fencingToken()).isEqualTo(handle.fencingToken());
                assertThat(kept.holds()).isZero();
                assertThat(kept.renewed()).isFalse();
                assertThat(kept.thread()).startsWith(RedisLocksEndpoint.KEPT_PREFIX);
                assertThat(kept.heldSince()).isBetween(before.minusMillis(50), Instant.now());
                assertThat(kept.leaseTime()).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(31));
            });
        });
    }

    @Test
    void showsHeldLocksAndWaitingThreads() {
        runner(redis.server()).run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            Instant before = Instant.now();
            LockHandle renewed = template.acquire(LockRequest.of("renewed", Duration.ZERO, null));
            LockHandle fixed = template.acquire(LockRequest.of("fixed", Duration.ZERO, Duration.ofSeconds(10)));
            redis.command("SET", "t:busy", "other:1", "PX", "30000");
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> template.run("busy",
                    Duration.ofSeconds(20), null, () -> {
                    }), TaskThreads.own());
            RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> !endpoint.locks().waiting().isEmpty());

            RedisLocksDescriptor locks = endpoint.locks();
            assertThat(locks.held()).extracting(HeldLockDescriptor::key).containsExactly("t:fixed", "t:renewed");
            HeldLockDescriptor fixedLock = locks.held().get(0);
            assertThat(fixedLock.fencingToken()).isEqualTo(fixed.fencingToken());
            assertThat(fixedLock.renewed()).isFalse();
            assertThat(fixedLock.leaseTime()).isEqualTo(Duration.ofSeconds(10));
            assertThat(fixedLock.heldSince()).isBetween(before.minusMillis(50), Instant.now());
            assertThat(fixedLock.thread()).isEqualTo(Thread.currentThread().getName());
            HeldLockDescriptor renewedLock = locks.held().get(1);
            assertThat(renewedLock.fencingToken()).isEqualTo(renewed.fencingToken());
            assertThat(renewedLock.renewed()).isTrue();
            assertThat(renewedLock.leaseTime()).isEqualTo(Duration.ofSeconds(30));
            assertThat(locks.waiting()).singleElement().satisfies((waiting) -> {
                assertThat(waiting.key()).isEqualTo("t:busy");
                assertThat(waiting.threads()).isEqualTo(1);
            });
            assertThat(locks.renewal().status()).isEqualTo("OK");
            assertThat(locks.renewal().period()).isEqualTo(Duration.ofSeconds(10));

            redis.command("DEL", "t:busy");
            waiter.get(10, TimeUnit.SECONDS);
            renewed.close();
            fixed.close();
            assertThat(endpoint.locks().held()).isEmpty();
            assertThat(endpoint.locks().waiting()).isEmpty();
        });
    }

    @Test
    void aRenewalStartsTheLeaseAgain() {
        runner(redis.server()).run((context) -> {
            LockHandle renewed = context.getBean(DistributedLockTemplate.class)
                .acquire(LockRequest.of("renewed", Duration.ZERO, null));
            RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
            Instant acquiredLease = endpoint.locks().held().get(0).leaseStartedAt();
            await().atMost(Duration.ofSeconds(1)).until(() -> Instant.now().isAfter(acquiredLease.plusMillis(20)));
            Instant renewing = Instant.now();
            context.getBean(LockEngine.class).renewNow();
            RedisLocksDescriptor locks = endpoint.locks();
            assertThat(locks.held().get(0).leaseStartedAt()).isAfterOrEqualTo(renewing.minusMillis(5));
            assertThat(locks.held().get(0).heldSince()).isBefore(renewing);
            assertThat(locks.renewal().lastSuccess()).isAfterOrEqualTo(renewing);
            renewed.close();
        });
    }

    @Test
    void showsFailingRenewalUntilARoundSucceedsAgain() {
        // A server of its own: failOneRound freezes it, which would stall the class's shared one for the other tests.
        try (RedisServer own = RedisServer.start()) {
            runner(own).withPropertyValues("spring.data.redis.timeout=300ms").run((context) -> {
                LockEngine client = context.getBean(LockEngine.class);
                LockHandle handle = context.getBean(DistributedLockTemplate.class)
                    .acquire(LockRequest.of("job", Duration.ZERO, null));
                RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
                RenewalFaults.failOneRound(own, client);
                RedisLocksEndpoint.RenewalDescriptor failing = endpoint.locks().renewal();
                assertThat(failing.status()).isEqualTo("FAILING");
                assertThat(failing.failedRounds()).isEqualTo(1);
                assertThat(failing.lastFailure()).isNotNull();
                assertThat(failing.lastError()).isNotBlank();
                client.renewNow();
                assertThat(endpoint.locks().renewal().status()).isEqualTo("OK");
                handle.close();
            });
        }
    }

    @Test
    void isNotThereUnlessExposed() {
        LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(RedisLocksEndpointAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLocksEndpoint.class));
    }

    @Test
    void isNotThereWhenSwitchedOff() {
        // Upper case: a bare context runner's environment lacks Boot's lenient enum conversion (an application
        // also accepts "none").
        runner(redis.server()).withPropertyValues("management.endpoint.redislocks.access=NONE")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLocksEndpoint.class));
    }

    @Test
    void isNotThereWithoutActuator() {
        runner(redis.server()).withClassLoader(new FilteredClassLoader(Endpoint.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLocksEndpoint.class));
    }

    @Test
    void isThereWhenExposed() {
        runner(redis.server()).run((context) -> assertThat(context).hasSingleBean(RedisLocksEndpoint.class));
    }
}
