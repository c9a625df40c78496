package io.github.redislock.redis;

/** Compares Redis version strings such as "7.0.15" and "6.2.6", number by number. */
final class RedisVersion {

    private RedisVersion() {
    }

    /** Whether {@code version} is at least {@code major.minor}; an unreadable version counts as too old. */
    static boolean atLeast(String version, int major, int minor) {
        return compare(version, major + "." + minor) >= 0;
    }

    static int compare(String left, String right) {
        String[] a = left.split("\\.");
        String[] b = right.split("\\.");
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int difference = Integer.compare(number(a, i), number(b, i));
            if (difference != 0) {
                return difference;
            }
        }
        return 0;
    }

    private static int number(String[] parts, int index) {
        if (index >= parts.length) {
            return 0;
        }
        try {
            return Integer.parseInt(parts[index].trim());
        }
        catch (NumberFormatException ex) {
            return -1;
        }
    }
}
