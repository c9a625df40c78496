package io.github.redislock.storekit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.Sharing;

/**
 * Read/write locks: readers share a key across applications, a writer is alone (judged by a {@link Witness}), a
 * waiting writer is not starved by a stream of readers, an upgrade is refused at once, a downgrade enters the
 * write lock, and a multi-key request of either mode is all or nothing.
 */
public interface ReadWriteChecks extends StoreChecks {

    /** A renewed read lock on the name, waiting up to {@code wait}. */
    static LockRequest read(String name, Duration wait) {
        return LockRequest.of(name, wait, null).mode(LockMode.READ);
    }

    /** Readers of two applications hold one key at once; a writer of a third is kept out until both are gone. */
    @Test
    default void readersShareAKeyAndAWriterWaitsForThemAll() {
        assumeShared(Sharing.READ);
        List<Application> applications = applications().start(3, STEADY_LEASE);
        LockHandle first = applications.get(0).acquire(read("doc", NO_WAIT));
        LockHandle second = sharedAtOnce(applications.get(1), read("doc", NO_WAIT));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        Application writer = applications.get(2);
        assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> writer.acquire("doc", SHORT_WAIT));
        first.close();
        assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> writer.acquire("doc", SHORT_WAIT));
        second.close();
        try (LockHandle lock = writer.acquire("doc", LONG_WAIT)) {
            assertThat(lock.fencingToken()).isGreaterThan(second.fencingToken());
            assertThatExceptionOfType(LockNotAcquiredException.class)
                .isThrownBy(() -> applications.get(0).acquire(read("doc", SHORT_WAIT)));
        }
        awaitNothingLeft("doc");
    }

    /**
     * Three applications with three threads each, one thread in three a writer, the rest readers, on leases short
     * enough to cross renewal rounds: the witness finds no writer beside anyone, and fencing tokens distinct and
     * growing from section to section.
     */
    @Test
    default void aWriterIsAloneAgainstReadersAndWritersUnderLoad() throws Exception {
        assumeShared(Sharing.READ);
        List<Application> applications = applications().start(3, SHORT_LEASE);
        Witness witness = new Witness();
        List<Callable<?>> tasks = new ArrayList<>();
        for (Application application : applications) {
            for (int t = 0; t < 3; t++) {
                boolean writes = (t == 0);
                tasks.add(() -> {
                    for (int i = 0; i < 12; i++) {
                        LockRequest request = writes ? LockRequest.of("mixed", LONG_WAIT, null) : read("mixed", LONG_WAIT);
                        try (LockHandle lock = application.acquire(request)) {
                            Witness.Open section = witness.enter(application, lock.key(), lock.fencingToken(),
                                    writes ? Sharing.EXCLUSIVE : Sharing.READ);
                            Crowd.dwell();
                            witness.exit(section);
                        }
                    }
                    return null;
                });
            }
        }
        Crowd.run(tasks, Duration.ofMinutes(2));
        assertThat(witness.sections()).isEqualTo(3 * 3 * 12);
        assertThat(witness.breaches()).isEmpty();
        awaitNothingLeft("mixed");
    }

    /**
     * A writer waits behind a reader while other applications keep a stream of readers going, each reader
     * staying until the next one is in (or a second has passed). Readers that arrive after the writer queue behind
     * it, so the stream stalls and the writer gets in; a store that lets readers pass a waiting writer keeps it out
     * for the whole stream.
     */
    @Test
    default void aWaitingWriterIsNotStarvedByAStreamOfReaders() throws Exception {
        assumeShared(Sharing.READ);
        Application writer = start(STEADY_LEASE);
        List<Application> readers = applications().start(2, STEADY_LEASE);
        int stream = 20;
        AtomicBoolean writerIn = new AtomicBoolean();
        AtomicInteger readersBeforeWriter = new AtomicInteger();
        LockHandle firstReader = readers.get(0).acquire(read("popular", NO_WAIT));
        CompletableFuture<Void> writing = writer.onAnotherThread(() -> {
            try (LockHandle lock = writer.acquire("popular", LONG_WAIT)) {
                writerIn.set(true);
            }
            return null;
        });
        awaitWaiting(writer, "popular");
        LockHandle previous = firstReader;
        for (int i = 1; i < stream && !writerIn.get(); i++) {
            Application next = readers.get(i % 2);
            CompletableFuture<LockHandle> coming = next.onAnotherThread(() -> next.acquire(read("popular", LONG_WAIT)));
            LockHandle in = null;
            try {
                in = coming.get(1, TimeUnit.SECONDS);
                if (!writerIn.get()) {
                    readersBeforeWriter.incrementAndGet();
                }
            }
            catch (java.util.concurrent.TimeoutException queuedBehindTheWriter) {
                // The reader waits behind the writer: let the key go, and take the reader's lock when it comes.
            }
            previous.close();
            previous = (in != null) ? in : coming.get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        previous.close();
        writing.get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(readersBeforeWriter.get()).as("readers that got in while the writer waited")
            .isLessThan(stream - 1);
        awaitNothingLeft("popular");
    }

    /**
     * A thread that holds a read lock and asks for the write lock (an upgrade) is refused at once, never left to
     * wait for itself; its read lock stays, and nothing of the attempt is left.
     */
    @Test
    default void anUpgradeIsRefusedAtOnceAndLeavesTheReadLockAlone() {
        assumeShared(Sharing.READ);
        Application application = start(STEADY_LEASE);
        try (LockHandle read = application.acquire(read("upgrade", NO_WAIT))) {
            long before = System.nanoTime();
            assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> application.acquire("upgrade", LONG_WAIT))
                .withMessageContaining("upgrade");
            assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(LONG_WAIT);
            assertThat(read.verifyHeld()).isTrue();
        }
        awaitNothingLeft("upgrade");
    }

    /**
     * A thread that holds the write lock and asks for the read lock enters its write lock (a downgrade within it):
     * same fencing token, and another application's reader stays out until the write lock is released.
     */
    @Test
    default void aReadLockInsideTheWriteLockEntersIt() {
        assumeShared(Sharing.READ);
        List<Application> applications = applications().start(2, STEADY_LEASE);
        try (LockHandle write = applications.get(0).acquire("downgrade", NO_WAIT)) {
            try (LockHandle read = applications.get(0).acquire(read("downgrade", NO_WAIT))) {
                assertThat(read.fencingToken()).isEqualTo(write.fencingToken());
                assertThatExceptionOfType(LockNotAcquiredException.class)
                    .isThrownBy(() -> applications.get(1).acquire(read("downgrade", SHORT_WAIT)));
            }
            assertThat(write.verifyHeld()).isTrue();
        }
        try (LockHandle read = applications.get(1).acquire(read("downgrade", LONG_WAIT))) {
            assertThat(read.verifyHeld()).isTrue();
        }
        awaitNothingLeft("downgrade");
    }

    /**
     * A write request for two keys, one of them read-held by another application, fails within its wait time and
     * leaves the other key free; a read request for both succeeds beside the reader.
     */
    @Test
    default void multiKeyRequestsOfEitherModeAreAllOrNothing() {
        assumeShared(Sharing.READ);
        List<Application> applications = applications().start(2, STEADY_LEASE);
        try (LockHandle reader = applications.get(0).acquire(read("b-shared", NO_WAIT))) {
            Application other = applications.get(1);
            assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(
                    () -> other.acquire(LockRequest.of(List.of("a-free", "b-shared"), SHORT_WAIT, null)));
            // A store that queues waiters may take the failed writer's entry out after the call returned (the
            // Redis store leaves on a thread of its own): a reader of that application arriving before it would
            // rightly queue behind its waiting writer.
            awaitNotWaiting(other, "b-shared");
            try (LockHandle free = applications.get(0).acquire("a-free", NO_WAIT)) {
                assertThat(free.verifyHeld()).isTrue();
            }
            try (LockHandle both = sharedAtOnce(other,
                    LockRequest.of(List.of("a-free", "b-shared"), NO_WAIT, null).mode(LockMode.READ))) {
                assertThat(both.verifyHeld()).isTrue();
                assertThat(reader.verifyHeld()).isTrue();
            }
        }
        awaitNothingLeft("a-free", "b-shared");
    }

    /** A key read-held refuses a semaphore's request at once, naming both counts. */
    @Test
    default void aSemaphoreRequestOnAReadLockedKeyIsRefusedNamingBoth() {
        assumeShared(Sharing.READ);
        List<Application> applications = applications().start(2, STEADY_LEASE);
        try (LockHandle reader = applications.get(0).acquire(read("read-only", NO_WAIT))) {
            assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> applications.get(1).acquire(PermitChecks.permit("read-only", 4, LONG_WAIT)))
                .withMessageContaining("read lock").withMessageContaining("4 permits");
            assertThat(reader.verifyHeld()).isTrue();
        }
        awaitNothingLeft("read-only");
    }

    /**
     * A request that must get in at once beside the holders there are (readers beside readers): a refusal is the
     * check's failure, not an error of the run.
     */
    private static LockHandle sharedAtOnce(Application application, LockRequest request) {
        try {
            return application.acquire(request);
        }
        catch (LockNotAcquiredException ex) {
            throw new AssertionError(application + " was refused " + request + " beside the readers holding it", ex);
        }
    }

    /** Waits until the application no longer waits for the name's key, as its engine and the store tell. */
    private void awaitNotWaiting(Application application, String name) {
        String key = application.key(name);
        await().atMost(LONG_WAIT).until(() -> application.engine().state().waiting().getOrDefault(key, 0) == 0
                && valueOrZero(application.inspect(name).waiting()) == 0);
    }

    /** Waits until the application waits for the name's key, as its engine or the store tells. */
    private void awaitWaiting(Application application, String name) {
        String key = application.key(name);
        await().atMost(LONG_WAIT).until(() -> application.engine().state().waiting().getOrDefault(key, 0) > 0
                || valueOrZero(application.inspect(name).waiting()) > 0);
    }

    private static int valueOrZero(Integer value) {
        return (value != null) ? value : 0;
    }
}
