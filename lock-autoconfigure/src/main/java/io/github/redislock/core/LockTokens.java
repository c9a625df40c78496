package io.github.redislock.core;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Fresh random lock tokens: 128 bits from a cryptographically strong generator, URL-safe Base64 (22
 * characters). Random rather than sequential so that no other client can guess, and so overwrite or
 * release, a token it did not create.
 * <p>
 * A single {@link SecureRandom} serialises every caller on one monitor; a small set of independently
 * seeded DRBG instances, picked by thread id, keeps concurrent acquisitions from queueing behind each
 * other (a {@code ThreadLocal} would seed a new generator for every short-lived virtual thread).
 */
final class LockTokens {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final SecureRandom[] generators;

    private final int mask;

    LockTokens() {
        int size = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 2 - 1) << 1;
        this.generators = new SecureRandom[size];
        for (int i = 0; i < size; i++) {
            this.generators[i] = newGenerator();
        }
        this.mask = size - 1;
    }

    String next() {
        byte[] bytes = new byte[16];
        @SuppressWarnings("deprecation") // Thread#threadId() needs Java 19; getId() is the same number.
        long threadId = Thread.currentThread().getId();
        this.generators[(int) (threadId ^ (threadId >>> 16)) & this.mask].nextBytes(bytes);
        return ENCODER.encodeToString(bytes);
    }

    private static SecureRandom newGenerator() {
        try {
            return SecureRandom.getInstance("DRBG");
        }
        catch (NoSuchAlgorithmException ex) {
            return new SecureRandom();
        }
    }
}
