package io.github.redislock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.testsupport.RespConnection;
import org.jspecify.annotations.Nullable;

/**
 * One connection to the witness: a Redis of its own that no fault touches and that the library under test never
 * talks to. Everything the verdict rests on is written here, by scripts that run atomically in the witness:
 * <ul>
 * <li>occupancy: a set per resource of the sections inside it ({@code occ:<resource>}); a section that enters
 * and finds another member has overlapped it ({@code enter.lua}, {@code leave.lua});</li>
 * <li>the fencing store: per resource the highest fencing token seen and a counter that each section reads
 * and writes back plus one, both only with a token not below the highest ({@code fenced-read.lua},
 * {@code fenced-write.lua}); rejections are counted per worker in {@code rejected};</li>
 * <li>for the shared workloads ({@link Workload}): entering judged by the key's bound (a writer alone, readers
 * together, at most n permits), and readers' reads refused below the highest writer's
 * token ({@code fenced-look.lua}), writers' below the highest reader's too;</li>
 * <li>one record per section ({@code sections}, see {@link SectionRecord}), and counters of exceptions and
 * lock-loss events per worker; in the leader election workload, one record per term ({@code terms}, see
 * {@link TermRecord});</li>
 * <li>the run's signals: {@code ready} (workers up), {@code go}, {@code stop}, {@code dead} (killed workers).</li>
 * </ul>
 * Not thread-safe: one per thread. Talks plain RESP ({@link RespConnection}), not Spring Data Redis.
 */
final class Witness implements AutoCloseable {

    static final String SECTIONS = "sections";

    static final String REJECTED = "rejected";

    static final String EXCEPTIONS = "exceptions";

    static final String LOST_EVENTS = "lost-events";

    /** The leader election workload's terms, one {@link TermRecord} per term. */
    static final String TERMS = "terms";

    private static final Map<String, String> SCRIPTS = new ConcurrentHashMap<>();

    private final RespConnection connection;

    private final Map<String, String> loaded = new HashMap<>();

    private Witness(RespConnection connection) {
        this.connection = connection;
    }

    static Witness connect(int port) {
        return connect("127.0.0.1", port);
    }

    /** A worker in a network namespace of its own reaches the witness at its veth pair's host end. */
    static Witness connect(String host, int port) {
        return new Witness(RespConnection.open(host, port, Duration.ofSeconds(10)));
    }

    /**
     * Enters the resources; returns the witness time in microseconds followed by the members inside whose presence
     * breaks the keys' bound with this entry: every member inside for a plain lock, and for a section of a shared
     * workload (its {@link Share} ending its member) as that share allows.
     */
    Entry enter(List<String> resources, String member) {
        List<?> reply = (List<?>) script("enter.lua", occupancyKeys(resources), member);
        long micros = micros(reply.get(0), reply.get(1));
        List<String> others = new ArrayList<>();
        for (int i = 2; i < reply.size(); i++) {
            // A two-key section inside both of this one's resources is one overlap, not two.
            if (!others.contains(reply.get(i))) {
                others.add((String) reply.get(i));
            }
        }
        return new Entry(micros, others);
    }

    /** Leaves the resources; returns the witness time in microseconds. */
    long leave(List<String> resources, String member) {
        List<?> reply = (List<?>) script("leave.lua", occupancyKeys(resources), member);
        return micros(reply.get(0), reply.get(1));
    }

    /** The resource's counter, or null when the token is below one the resource has already seen. */
    String fencedRead(String resource, long token, String worker) {
        List<?> reply = (List<?>) script("fenced-read.lua", List.of(fenceKey(resource), REJECTED),
                Long.toString(token), worker);
        return ((Long) reply.get(0) == 1) ? (String) reply.get(1) : null;
    }

    /**
     * A reader's read of the resource's counter; null when the token is below the highest a writer has used there.
     * Raises the highest reader's token, below which writers are refused.
     */
    @Nullable String fencedLook(String resource, long token, String worker) {
        List<?> reply = (List<?>) script("fenced-look.lua", List.of(fenceKey(resource), REJECTED),
                Long.toString(token), worker);
        return ((Long) reply.get(0) == 1) ? (String) reply.get(1) : null;
    }

    /** Writes the value read plus one: 1 accepted, 2 accepted over someone else's update, 0 rejected. */
    long fencedWrite(String resource, long token, String worker, String read) {
        return (Long) script("fenced-write.lua", List.of(fenceKey(resource), REJECTED), Long.toString(token),
                worker, read);
    }

    Object command(String... arguments) {
        try {
            return this.connection.command(arguments);
        }
        catch (RuntimeException ex) {
            throw new WitnessException("Witness command " + arguments[0] + " failed", ex);
        }
    }

    long timeMicros() {
        List<?> reply = (List<?>) command("TIME");
        return micros(reply.get(0), reply.get(1));
    }

    static String fenceKey(String resource) {
        return "fence:" + resource;
    }

    static String occupancyKey(String resource) {
        return "occ:" + resource;
    }

    private static List<String> occupancyKeys(List<String> resources) {
        return resources.stream().map(Witness::occupancyKey).toList();
    }

    private static long micros(Object seconds, Object micros) {
        return Long.parseLong((String) seconds) * 1_000_000 + Long.parseLong((String) micros);
    }

    private Object script(String name, List<String> keys, String... arguments) {
        String sha = this.loaded.computeIfAbsent(name, (script) -> (String) command("SCRIPT", "LOAD", source(script)));
        List<String> command = new ArrayList<>(List.of("EVALSHA", sha, Integer.toString(keys.size())));
        command.addAll(keys);
        command.addAll(List.of(arguments));
        return command(command.toArray(String[]::new));
    }

    private static String source(String name) {
        return SCRIPTS.computeIfAbsent(name, (script) -> {
            try (InputStream in = Witness.class.getResourceAsStream(script)) {
                if (in == null) {
                    throw new IllegalStateException("Missing witness script " + script);
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        });
    }

    @Override
    public void close() {
        this.connection.close();
    }

    /**
     * The witness failed: the run cannot be judged. Kept apart from what the lock calls throw, which the
     * workers count as results.
     */
    static final class WitnessException extends RuntimeException {

        WitnessException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What entering found: the witness time and the sections already inside. */
    record Entry(long micros, List<String> others) {
    }
}
