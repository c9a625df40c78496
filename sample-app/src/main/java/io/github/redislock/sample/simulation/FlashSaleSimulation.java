package io.github.redislock.sample.simulation;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * {@code --simulate}: the same flash sale twice against one Redis, through several app instances and real HTTP:
 * first with {@code @DistributedLock}, then with {@code redis-lock.enabled=false}. Prints both side by side.
 * <p>
 * Exit code: 0 when the locked sale oversold nothing and the unlocked one oversold (the lock made the
 * difference), 1 when not, 2 when the simulation could not run.
 */
public final class FlashSaleSimulation {

    /** The command-line flag that selects the simulation. */
    public static final String FLAG = "--simulate";

    private FlashSaleSimulation() {
    }

    public static boolean isRequested(String[] args) {
        return Arrays.asList(args).contains(FLAG);
    }

    /** Runs the simulation and returns the process exit code. */
    public static int run(String[] args) {
        PrintStream out = System.out;
        List<String> arguments = Arrays.stream(args).filter((arg) -> !FLAG.equals(arg)).toList();
        try {
            ConfigurableEnvironment environment = environment(arguments);
            SimulationSettings settings = SimulationSettings.from(environment);
            try (SimulationRedis redis = SimulationRedis.prepare(environment)) {
                printHeader(out, settings, redis);
                SaleRun sale = new SaleRun(settings, arguments, redis.instanceProperties());
                // Compiled code is shared by every instance in this JVM, so the second run needs only enough
                // warm-up to open its connections and start its threads.
                RunResult locked = run(out, sale, true, 1, settings.warmUpBuyers());
                RunResult unlocked = run(out, sale, false, 2, settings.warmUpBuyers() / 10);
                out.println();
                new ComparisonTable(locked, unlocked).print(out);
                return verdict(out, locked, unlocked);
            }
        }
        catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            out.println();
            out.println("The simulation could not run: " + ex);
            ex.printStackTrace(System.err);
            return 2;
        }
    }

    /**
     * What an instance would see of the configuration (arguments, environment variables, {@code application.yml}),
     * so that the launcher picks the same Redis as the application would.
     */
    private static ConfigurableEnvironment environment(List<String> arguments) {
        StandardEnvironment environment = new StandardEnvironment();
        String[] commandLine = arguments.toArray(String[]::new);
        environment.getPropertySources().addFirst(new SimpleCommandLinePropertySource(commandLine));
        ConfigDataEnvironmentPostProcessor.applyTo(environment);
        return environment;
    }

    private static void printHeader(PrintStream out, SimulationSettings settings, SimulationRedis redis) {
        out.println();
        out.printf(Locale.ROOT, "Flash sale: %d items of SKU %d, %,d buyers, %d client threads across %d app "
                + "instances%n", settings.items(), settings.sku(), settings.buyers(), settings.concurrency(),
                settings.instances());
        out.println("Redis: " + redis.description());
        if (settings.warmUpBuyers() > 0) {
            out.printf(Locale.ROOT, "Timings start after %,d uncounted warm-up requests, so the JIT compiler "
                    + "favours neither run.%n", settings.warmUpBuyers());
        }
        out.println();
    }

    private static RunResult run(PrintStream out, SaleRun sale, boolean locked, int number, int warmUpBuyers)
            throws Exception {
        out.printf("Run %d of 2: %s ... ", number,
                locked ? "WITH @DistributedLock" : "WITHOUT the lock (redis-lock.enabled=false)");
        out.flush();
        RunResult result = sale.run(locked, warmUpBuyers);
        String ports = result.instances().stream().map((uri) -> Integer.toString(uri.getPort()))
                .collect(Collectors.joining(", "));
        out.printf(Locale.ROOT, "done in %.2f s (instances on ports %s)%n",
                result.crowd().wallTime().toNanos() / 1e9, ports);
        return result;
    }

    private static int verdict(PrintStream out, RunResult locked, RunResult unlocked) {
        long lockedOversold = locked.finalState().oversold();
        long unlockedOversold = unlocked.finalState().oversold();
        out.println();
        if (lockedOversold == 0) {
            out.printf("With the lock:    %d of %d items sold, none oversold.%n", locked.finalState().orders(),
                    locked.finalState().stocked());
        }
        else {
            out.printf("With the lock:    %d items OVERSOLD. The lock did not protect the stock!%n", lockedOversold);
        }
        if (unlockedOversold > 0) {
            out.printf("Without the lock: %d orders for %d items: %d items sold that did not exist, because%n"
                    + "                  concurrent buyers read the same stock and each sold the same item.%n",
                    unlocked.finalState().orders(), unlocked.finalState().stocked(), unlockedOversold);
        }
        else {
            out.println("Without the lock: no oversell this time; the race was not hit. Try more buyers, more "
                    + "threads or a longer --flash-sale.processing-time.");
        }
        boolean demonstrated = lockedOversold == 0 && unlockedOversold > 0;
        out.println();
        out.println(demonstrated ? "OK: the lock prevented overselling." : "FAILED: see above.");
        return demonstrated ? 0 : 1;
    }
}
