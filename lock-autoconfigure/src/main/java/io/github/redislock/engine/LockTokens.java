package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
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
 * Store SPI: a store draws its own random ids and tokens here (Redlock draws one per attempt), and names a
 * holder from a token by {@link #idOf} (see {@link LockStore#publishInstance}).
 */
public final class LockTokens {

    /** A random id's length: 128 bits in URL-safe Base64 without padding. */
    public static final int ID_LENGTH = 22;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final String id = randomId();

    /** The digits of base 36, as {@link Long#toString(long, int)} writes them. */
    private static final byte[] DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII);

    /** The id and the dot, in ASCII. */
    private final byte[] prefix = (this.id + '.').getBytes(StandardCharsets.US_ASCII);

    private final AtomicLong sequence = new AtomicLong();

    /** A fresh token, never returned before by this instance. */
    public String next() {
        long sequence = this.sequence.incrementAndGet();
        int digits = 1;
        for (long rest = sequence / DIGITS.length; rest > 0; rest /= DIGITS.length) {
            digits++;
        }
        // Written into one array of the token's length: Long.toString(sequence, 36) and a concatenation cost
        // two strings and a 65-byte buffer more, on every acquisition.
        byte[] token = Arrays.copyOf(this.prefix, this.prefix.length + digits);
        for (int at = token.length - 1; at >= this.prefix.length; at--) {
            token[at] = DIGITS[(int) (sequence % DIGITS.length)];
            sequence /= DIGITS.length;
        }
        return new String(token, StandardCharsets.US_ASCII);
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
        if (token == null || token.length() < ID_LENGTH + 2 || token.length() > ID_LENGTH + 14
                || token.charAt(ID_LENGTH) != '.' || !isId(token, 0, ID_LENGTH)) {
            return null;
        }
        for (int i = ID_LENGTH + 1; i < token.length(); i++) {
            char c = token.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))) {
                return null;
            }
        }
        return token.substring(0, ID_LENGTH);
    }

    /** Whether the characters from {@code from} to {@code to} are URL-safe Base64, as {@link #randomId} draws them. */
    public static boolean isId(CharSequence text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
                    || c == '_')) {
                return false;
            }
        }
        return true;
    }
}
