package io.github.redislock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * A defect built into the workers on purpose, to show that the suite catches what it claims to. It changes
 * nothing in the library's code or jar: the workers get a directory in front of their class path holding a
 * replacement for one of the library's Lua scripts, which the class loader then finds first. Only the suite's
 * own worker JVMs ever see it.
 */
enum Sabotage {

    /**
     * A release that does not compare: whatever the key holds is made to look like the releasing holder's value
     * before the library's own release runs, so a holder whose lease ran out deletes (or hands on) the lock
     * of whoever holds it now.
     */
    RELEASE_WITHOUT_COMPARE("io/github/redislock/redis/support/unlock.lua", """
            -- SABOTAGE (redis-lock torture suite): release whatever the key holds, without comparing.
            if redis.call('EXISTS', KEYS[1]) == 1 and string.sub(ARGV[1], -1) ~= ':' then
                redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
            end
            """),

    /**
     * A share that pushes another out: every take of a read lock or a permit on one Redis first drops the holder of
     * the key whose lease ends first, which runs on and learns it only at its next renewal, so that one more reader
     * (or a writer, once the readers are all dropped) or one permit too many is let in beside it.
     */
    SHARE_DROPS_A_HOLDER("io/github/redislock/redis/support/share.lua", """
            -- SABOTAGE (redis-lock torture suite): a take first drops the holder whose lease ends first.
            if ARGV[1] == 'take' then
                redis.call('ZPOPMIN', KEYS[4])
            end
            """);

    private final String script;

    private final String prefix;

    Sabotage(String script, String prefix) {
        this.script = script;
        this.prefix = prefix;
    }

    String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Sabotage of(String id) {
        return Arrays.stream(values())
            .filter((sabotage) -> sabotage.id().equals(id))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("Unknown sabotage '" + id + "'; there is "
                    + Arrays.stream(values()).map(Sabotage::id).toList()));
    }

    /** Writes the broken script under the directory, where a class path entry in front of the library finds it. */
    Path writeTo(Path directory) {
        try (InputStream original = Sabotage.class.getClassLoader().getResourceAsStream(this.script)) {
            if (original == null) {
                throw new IllegalStateException("The library has no " + this.script + " to sabotage");
            }
            String text = this.prefix + new String(original.readAllBytes(), StandardCharsets.UTF_8);
            Path target = directory.resolve(this.script);
            Files.createDirectories(target.getParent());
            Files.writeString(target, text);
            return directory;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
