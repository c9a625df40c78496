package io.github.redislock.engine;

import java.net.InetAddress;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One running application instance, as it describes itself in a store's instance registry, so that
 * {@link LockStore#inspect} can name the holder of a key. Drawn once per process.
 * <p>
 * Every store keeps an instance as the same entry: a few lines of text ({@value #ENTRY_HEADER}, application,
 * instance id, host, pid), written by {@link #entry} and believed only in exactly that form by {@link #parse}
 * (another client may have written anything where an entry is expected). The Spring Boot auto-configuration
 * defines this process as a bean (from {@code spring.application.name}) unless the application defines its own,
 * and hands it to the one store ({@link LockStore#publishInstance}). Store SPI (see the package documentation).
 * @param application the application's {@code spring.application.name}
 * @param id a random id drawn at start-up: stable for the life of the process, new after a restart
 * @param host the host name
 * @param pid the process id
 */
public record InstanceInfo(String application, String id, String host, long pid) {

    /** The first line of an entry: its format and version. Entries of another version are not read. */
    public static final String ENTRY_HEADER = "redis-lock-instance/1";

    /** Longest entry worth reading: the header, three fields, a pid and four line breaks fit. */
    public static final int MAX_ENTRY = 1024;

    /** Longest field kept, in characters. */
    private static final int MAX_FIELD = 200;

    /** This process, under the given application name. */
    public static InstanceInfo current(String application) {
        return new InstanceInfo(application, UUID.randomUUID().toString(), hostName(),
                ProcessHandle.current().pid());
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (Exception ex) {
            // A host without a resolvable name still runs; the view then shows no host.
            return "unknown";
        }
    }

    /** This instance as a registry entry. */
    public String entry() {
        return ENTRY_HEADER + '\n' + field(this.application) + '\n' + field(this.id) + '\n' + field(this.host) + '\n'
                + this.pid;
    }

    /**
     * An entry read back, in exactly the form {@link #entry} writes, else {@code null}; fields are checked as
     * {@link #entry} would have written them.
     */
    public static @Nullable InstanceInfo parse(@Nullable String entry) {
        if (entry == null || entry.length() > MAX_ENTRY) {
            return null;
        }
        String[] lines = entry.split("\n", -1);
        if (lines.length != 5 || !ENTRY_HEADER.equals(lines[0]) || !lines[4].matches("[0-9]{1,10}")) {
            return null;
        }
        for (int i = 1; i < 4; i++) {
            if (lines[i].isEmpty() || !field(lines[i]).equals(lines[i])) {
                return null;
            }
        }
        return new InstanceInfo(lines[1], lines[2], lines[3], Long.parseLong(lines[4]));
    }

    /** At most {@value #MAX_FIELD} characters, control characters as {@code ?}: one line, fit to show. */
    private static String field(String text) {
        StringBuilder field = new StringBuilder(Math.min(text.length(), MAX_FIELD));
        for (int i = 0; i < text.length() && i < MAX_FIELD; i++) {
            char c = text.charAt(i);
            field.append((c < 0x20 || (c >= 0x7F && c <= 0x9F)) ? '?' : c);
        }
        return field.toString();
    }
}
