package io.github.redislock.redis;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * This application's {@link Line}s, one per key while threads here wait for it, the application is queued for
 * it or a lock passed to the line waits to be claimed; the one owner of that map. A line with nothing left to
 * remember is retired (taken out of the map, see {@link Line#retireIfIdle}), and a thread that finds the line
 * it joins retired joins the one replacing it, so no thread ever waits in a line nobody else can find.
 */
final class Lines {

    private final Map<String, Line> lines = new ConcurrentHashMap<>();

    /** The key's line, if threads here wait for it or the application is queued. */
    @Nullable Line get(String keyName) {
        return this.lines.get(keyName);
    }

    /** Puts the current thread at the back of the key's line, which is created if need be. */
    Line join(String keyName) {
        while (true) {
            Line line = this.lines.computeIfAbsent(keyName, (name) -> new Line());
            if (line.join()) {
                return line;
            }
            // Retired just now: join the line that replaces it.
        }
    }

    /** Takes the line out once it has nothing left to remember. */
    void retireIfIdle(String keyName, Line line) {
        if (line.retireIfIdle()) {
            this.lines.remove(keyName, line);
        }
    }

    /**
     * The application gave up its entry in the key's queue: a thread that joined the line meanwhile looks at
     * Redis at once (its entry may have gone with ours); with nobody waiting the line retires.
     */
    void leftQueue(String keyName, Line line) {
        if (!line.leftQueue()) {
            retireIfIdle(keyName, line);
        }
    }

    /**
     * The hand-off channel of these keys is listened to now: a hand-off sent before, while it was not, was
     * missed, so the first waiter of each of their lines looks at Redis.
     */
    void lookNow(Predicate<String> keys) {
        this.lines.forEach((keyName, line) -> {
            if (keys.test(keyName)) {
                line.tryNow();
            }
        });
    }

    /** Per key, how many threads of this application wait for it now (keys nobody waits for are left out). */
    Map<String, Integer> waitingThreads() {
        Map<String, Integer> waiting = new TreeMap<>();
        this.lines.forEach((keyName, line) -> {
            int threads = line.waiterCount();
            if (threads > 0) {
                waiting.put(keyName, threads);
            }
        });
        return waiting;
    }
}
