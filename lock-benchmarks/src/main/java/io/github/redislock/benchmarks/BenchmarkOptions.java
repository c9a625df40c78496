package io.github.redislock.benchmarks;

import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The command line of {@link BenchmarkMain}, parsed once so that the rest of the code sees decisions, not
 * strings.
 *
 * @param mode full or quick durations
 * @param uncontended whether to run the uncontended JMH part
 * @param hotKey whether to run the hot-key part
 * @param shared whether to run the shared-key part (semaphores and read/write locks)
 * @param implementations which implementations to run (by table name)
 * @param jmhLog where JMH's detailed output goes
 * @param stressCpus how many {@code stress-ng --cpu} workers load the machine beside the run (0: none)
 */
record BenchmarkOptions(RunMode mode, boolean uncontended, boolean hotKey, boolean shared, Predicate<String> implementations,
        Path jmhLog, int stressCpus) {

    static final String USAGE = """
            Usage: java -jar redis-lock-benchmarks.jar [--quick] [--only=uncontended|hotkey|shared] [--include=REGEX] [--jmh-log=FILE] [--stress-cpu=N]
              --quick           ~3 minute smoke run (also: -Dquick); default is the full run (~21 minutes on 2 cores)
              --only=PART       run only the uncontended (JMH) part, the hot-key part, or the shared-key part (semaphores, read/write locks)
              --include=REGEX   run only implementations whose table name matches, e.g. 'ours|lettuce'
              --jmh-log=FILE    JMH's iteration-by-iteration output (default: a file in java.io.tmpdir)
              --stress-cpu=N    run beside `stress-ng --cpu N` (N from 1 to 64; stress-ng on PATH), started before the first
                                benchmark and stopped after the last: the same run on a machine busy with other work
            """;

    static BenchmarkOptions parse(String[] args) {
        String quickProperty = System.getProperty("quick");
        boolean quick = quickProperty != null && !quickProperty.equalsIgnoreCase("false");
        String only = null;
        Predicate<String> implementations = (name) -> true;
        Path jmhLog = Path.of(System.getProperty("java.io.tmpdir"), "redis-lock-benchmarks-jmh.log");
        int stressCpus = 0;
        for (String arg : args) {
            if (arg.equals("--quick")) {
                quick = true;
            }
            else if (arg.startsWith("--only=")) {
                only = arg.substring("--only=".length());
                if (!only.equals("uncontended") && !only.equals("hotkey") && !only.equals("shared")) {
                    throw new IllegalArgumentException("--only takes uncontended, hotkey or shared, not " + only);
                }
            }
            else if (arg.startsWith("--include=")) {
                implementations = Pattern.compile(arg.substring("--include=".length())).asPredicate();
            }
            else if (arg.startsWith("--jmh-log=")) {
                jmhLog = Path.of(arg.substring("--jmh-log=".length()));
            }
            else if (arg.startsWith("--stress-cpu=")) {
                stressCpus = stressCpus(arg.substring("--stress-cpu=".length()));
            }
            else {
                throw new IllegalArgumentException("Unknown argument: " + arg);
            }
        }
        return new BenchmarkOptions(quick ? RunMode.QUICK : RunMode.FULL, only == null || only.equals("uncontended"),
                only == null || only.equals("hotkey"), only == null || only.equals("shared"), implementations, jmhLog, stressCpus);
    }

    private static int stressCpus(String value) {
        int cpus;
        try {
            cpus = Integer.parseInt(value);
        }
        catch (NumberFormatException ex) {
            cpus = -1;
        }
        if (cpus < 1 || cpus > 64) {
            throw new IllegalArgumentException("--stress-cpu takes a number of stress-ng CPU workers from 1 to 64, not '"
                    + value + "'");
        }
        return cpus;
    }
}
