package io.github.redislock.storekit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockProvider;
import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.LeadershipGrantedEvent;
import io.github.redislock.leader.LeadershipRevokedEvent;

/**
 * A leader candidate in a JVM of its own, for checks that freeze a leader (SIGSTOP) past its lease: the child
 * ({@link #serve}, called from a test's {@code main} that builds its store) runs a {@link LeaderCandidate} and writes
 * to its standard output every positive sample of its {@code term()} ({@code LEADS <from µs> <to µs> <term>}, the
 * {@link LeaderWitness}'s clock) and every event ({@code GRANTED <term>}, {@code REVOKED <term> <reason>}); the
 * parent ({@link #start}) feeds the samples to a {@link LeaderWitness} and keeps the events. The child ends when its
 * standard input does ({@link #close}).
 */
public final class CandidateProcess implements AutoCloseable {

    private final Process process;

    private final List<String> events = new CopyOnWriteArrayList<>();

    private final Thread reader;

    private CandidateProcess(String who, Process process, LeaderWitness witness) {
        this.process = process;
        this.reader = new Thread(() -> read(who, witness), "candidate-process-" + who);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * Starts {@code main} in a new JVM on this one's class path.
     * @param who the candidate's name in the witness
     * @param witness where its samples go
     */
    public static CandidateProcess start(String who, LeaderWitness witness, Class<?> main, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new CandidateProcess(who, process, witness);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + main.getName(), ex);
        }
    }

    private void read(String who, LeaderWitness witness) {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                String[] parts = line.split(" ");
                if (parts[0].equals("LEADS") && parts.length == 4) {
                    witness.record(who, Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]));
                }
                else if (parts[0].equals("GRANTED") || parts[0].equals("REVOKED")) {
                    this.events.add(line);
                }
            }
        }
        catch (IOException ex) {
            // The child ended.
        }
    }

    /** The child process (to signal it). */
    public Process process() {
        return this.process;
    }

    /** Its events so far, as written: {@code GRANTED <term>}, {@code REVOKED <term> <reason>}. */
    public List<String> events() {
        return this.events;
    }

    /** Ends the child's standard input and waits for it to stop its candidate and exit; kills it after a minute. */
    @Override
    public void close() throws InterruptedException {
        try {
            this.process.getOutputStream().close();
        }
        catch (IOException ex) {
            // Gone already.
        }
        if (!this.process.waitFor(1, TimeUnit.MINUTES)) {
            this.process.destroyForcibly();
        }
        this.reader.join(TimeUnit.SECONDS.toMillis(10));
    }

    /**
     * The child's side: stands in the election {@code name} over {@code locks}, reporting on standard output, until
     * standard input ends; then stops the candidate.
     */
    public static void serve(String name, LockProvider locks) throws IOException {
        PrintStream out = System.out;
        LeaderCandidate candidate = new LeaderCandidate(name, locks, (event) -> {
            if (event instanceof LeadershipGrantedEvent granted) {
                out.println("GRANTED " + granted.getTerm());
            }
            else if (event instanceof LeadershipRevokedEvent revoked) {
                out.println("REVOKED " + revoked.getTerm() + " " + revoked.getReason());
            }
        }, Duration.ofSeconds(1));
        Thread sampler = new Thread(() -> LeaderWitness.sample(candidate,
                (from, to, term) -> out.println("LEADS " + from + " " + to + " " + term)), "candidate-process-sampler");
        sampler.setDaemon(true);
        candidate.start();
        sampler.start();
        while (System.in.read() >= 0) {
            // nothing: only the end of the input counts
        }
        sampler.interrupt();
        candidate.stop();
        out.flush();
    }
}
