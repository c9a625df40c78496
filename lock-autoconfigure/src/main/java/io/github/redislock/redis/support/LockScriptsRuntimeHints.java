package io.github.redislock.redis.support;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * For native images: every Lua script {@link LockScripts} reads from the class path at start-up, those both Redis
 * stores run (next to {@link LockScripts}) and each store's own (next to the store, such as Redlock's
 * {@code fence.lua}), by one pattern over the library's resources, so that a new script needs no hint of its own.
 * Registered in {@code META-INF/spring/aot.factories}.
 */
final class LockScriptsRuntimeHints implements RuntimeHintsRegistrar {

    /** Every {@code .lua} file under the library's package, at any depth. */
    static final String SCRIPTS = "io/github/redislock/**/*.lua";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCRIPTS);
    }
}
