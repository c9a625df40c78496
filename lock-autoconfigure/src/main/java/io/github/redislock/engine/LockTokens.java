package io.github.redislock.engine;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * Lock tokens of one engine, one per request (the keys of a request share it): a random part drawn once, 128
 * bits from a cryptographically strong generator in URL-safe Base64 (22 characters), then a dot and a sequence
 * number in base 36. The sequence makes every token of the engine unique; the random part makes the tokens of
 * different engines (and of this one after a restart) distinct, and keeps anyone who has not seen one from
 * guessing, and so overwriting or releasing, a token this engine created. One random draw per engine rather than
 * per acquisition: a draw costs a digest and its allocations on the hot path, and contends on the generator.
 * Public for the stores' own random ids and tokens (Redlock draws one per attempt); internal.
 */
public final class LockTokens {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final String id = randomId();

    private final String prefix = this.id + '.';

    private final AtomicLong sequence = new AtomicLong();

    /** A fresh token, never returned before by this instance. */
    public String next() {
        return this.prefix + Long.toString(this.sequence.incrementAndGet(), Character.MAX_RADIX);
    }

    /**
     * The random part that begins every token of this instance: it names the instance in its store's instance
     * registry, so that the holder of a key can be told from the key's value (see {@link LockStore#inspect}).
     */
    public String id() {
        return this.id;
    }

    /** 128 random bits, URL-safe Base64: no colon, no dot. */
    public static String randomId() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return ENCODER.encodeToString(bytes);
    }

    /**
     * The random part of a token read back from a store, checked for exactly the form {@link #next} writes
     * (22 URL-safe Base64 characters, a dot, 1 to 13 base-36 digits); {@code null} for anything else, which
     * another client may have written.
     */
    public static @Nullable String idOf(@Nullable String token) {
        int idLength = 22;
        if (token == null || token.length() < idLength + 2 || token.length() > idLength + 14
                || token.charAt(idLength) != '.') {
            return null;
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            boolean ok = (i < idLength) ? (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' : i == idLength || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
            if (!ok) {
                return null;
            }
        }
        return token.substring(0, idLength);
    }
}
