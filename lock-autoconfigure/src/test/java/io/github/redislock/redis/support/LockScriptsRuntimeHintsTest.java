package io.github.redislock.redis.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For native images: every Lua script of every store, as found on the class path (so a new script without a hint
 * fails here), is registered by what {@code META-INF/spring/aot.factories} names.
 */
class LockScriptsRuntimeHintsTest {

    private static final String LIBRARY = "io/github/redislock/";

    @Test
    void everyLuaScriptOnTheClassPathIsRegisteredThroughAotFactories() throws IOException {
        RuntimeHints hints = new RuntimeHints();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
            .load(RuntimeHintsRegistrar.class)
            .forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));

        List<String> scripts = scriptsOnTheClassPath();
        // The scan itself: it finds the scripts both Redis stores run and Redlock's own, wherever they sit.
        assertThat(scripts).contains(LIBRARY + "redis/support/acquire.lua", LIBRARY + "redis/support/renew.lua",
                LIBRARY + "redis/support/unlock.lua", LIBRARY + "redis/support/inspect.lua",
                LIBRARY + "redlock/fence.lua");
        for (String script : scripts) {
            assertThat(RuntimeHintsPredicates.resource().forResource(script)).as(script).accepts(hints);
        }
    }

    /** Every {@code .lua} file under the library's package, as a class path location. */
    private static List<String> scriptsOnTheClassPath() throws IOException {
        List<String> scripts = new ArrayList<>();
        for (Resource resource : new PathMatchingResourcePatternResolver()
            .getResources("classpath*:" + LIBRARY + "**/*.lua")) {
            String url = resource.getURL().toString();
            scripts.add(url.substring(url.lastIndexOf(LIBRARY)));
        }
        return scripts;
    }
}
