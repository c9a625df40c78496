package io.github.redislock.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * For native images: the Lua scripts {@link LockScripts} reads from the classpath at start-up. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
final class LockScriptsRuntimeHints implements RuntimeHintsRegistrar {

    /** The scripts' directory, next to {@link LockScripts}. */
    static final String SCRIPTS = "io/github/redislock/redis/*.lua";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCRIPTS);
    }
}
