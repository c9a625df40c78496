package io.github.redislock.redlock;

import java.nio.charset.StandardCharsets;

import io.github.redislock.redis.support.LockScripts;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * A script the nodes run, as {@link LockScripts} loads it, with its SHA-1 and body as bytes, encoded once rather than
 * on every call to every node.
 * @param script the script, for the template
 * @param sha its SHA-1, for EVALSHA
 * @param body its text, for EVAL when a node lost its script cache
 * @param integer whether it replies with an integer (else an array)
 */
record NodeScript(RedisScript<?> script, byte[] sha, byte[] body, boolean integer) {

    static NodeScript of(RedisScript<?> script) {
        return new NodeScript(script, script.getSha1().getBytes(StandardCharsets.US_ASCII),
                script.getScriptAsString().getBytes(StandardCharsets.UTF_8), script.getResultType() == Long.class);
    }
}
