package io.github.redislock.engine;

import java.net.InetAddress;
import java.util.UUID;

/**
 * One running application instance, as it describes itself in a store's instance registry, so that
 * {@link LockStore#inspect} can name the holder of a key. Drawn once per process.
 * @param application the application's {@code spring.application.name}
 * @param id a random id drawn at start-up: stable for the life of the process, new after a restart
 * @param host the host name
 * @param pid the process id
 */
public record InstanceInfo(String application, String id, String host, long pid) {

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
}
