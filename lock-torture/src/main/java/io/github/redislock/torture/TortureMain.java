package io.github.redislock.torture;

import java.util.Arrays;
import java.util.List;

/**
 * {@code java -jar redis-lock-torture.jar [options]}: runs the scenarios and exits 0 when none failed (a
 * scenario this machine cannot run is skipped, saying why), 1 when one failed, 2 on a bad command line. {@code --help} prints the options ({@link TortureOptions#USAGE}). The jar
 * also starts the worker JVMs: {@code worker} as the first argument runs {@link Worker}.
 */
public final class TortureMain {

    private TortureMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("worker")) {
            Worker.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (Arrays.asList(args).contains("--help")) {
            System.out.println(TortureOptions.USAGE);
            return;
        }
        TortureOptions options;
        try {
            options = TortureOptions.parse(args);
        }
        catch (IllegalArgumentException ex) {
            System.err.println(ex.getMessage());
            System.exit(2);
            return;
        }
        List<ScenarioResult> results = new Torture(options, System.out).run();
        System.exit(results.stream().anyMatch(ScenarioResult::failed) ? 1 : 0);
    }
}
