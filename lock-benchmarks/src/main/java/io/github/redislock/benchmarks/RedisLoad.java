package io.github.redislock.benchmarks;

/**
 * What Redis has done so far, as two cumulative counters read from {@code INFO}: commands executed
 * ({@code total_commands_processed}, which also counts every command a Lua script runs) and CPU time
 * ({@code used_cpu_user + used_cpu_sys}, in microseconds). The difference of two snapshots divided by the
 * number of lock cycles in between is the load one cycle puts on Redis, which client-side timings miss.
 */
public record RedisLoad(long commands, long cpuMicros) {

    /** Parses the text of an {@code INFO} reply that includes the {@code stats} and {@code cpu} sections. */
    public static RedisLoad parse(String info) {
        long commands = -1;
        double cpuSeconds = 0;
        int cpuFields = 0;
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon);
            String value = line.substring(colon + 1).trim();
            switch (name) {
                case "total_commands_processed" -> commands = Long.parseLong(value);
                case "used_cpu_user", "used_cpu_sys" -> {
                    cpuSeconds += Double.parseDouble(value);
                    cpuFields++;
                }
                default -> {
                }
            }
        }
        if (commands < 0 || cpuFields != 2) {
            throw new IllegalArgumentException("INFO reply lacks total_commands_processed or used_cpu_*: " + info);
        }
        return new RedisLoad(commands, Math.round(cpuSeconds * 1_000_000));
    }

    /** The load between an earlier snapshot and this one. */
    public RedisLoad since(RedisLoad earlier) {
        return new RedisLoad(this.commands - earlier.commands, this.cpuMicros - earlier.cpuMicros);
    }

    public double commandsPer(long cycles) {
        return (cycles > 0) ? (double) this.commands / cycles : Double.NaN;
    }

    public double cpuMicrosPer(long cycles) {
        return (cycles > 0) ? (double) this.cpuMicros / cycles : Double.NaN;
    }
}
