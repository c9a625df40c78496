package io.github.redislock.aop;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;

import org.springframework.expression.Expression;

/**
 * A key template parsed once, at start-up, into literal text, direct argument references and SpEL
 * expressions; per call it only evaluates. A part that evaluates to a collection or array yields one key
 * per element (several such parts: every combination), at most {@code maxKeys} for the whole call, counted
 * while expanding. A {@code byte[]} or {@code char[]} is no collection of keys and no text either: it is
 * refused.
 * <p>
 * Values are request data: each is escaped ({@link #escaped}) so that no value can add a ':' separator, a
 * hash tag brace, a '~' or a control character to the key. With the parser's rule that values are separated
 * by ':', different values make different keys, and no value picks a key's cluster slot.
 * <p>
 * Every failure names the template and the method it belongs to: a part that is {@code null} or empty, an
 * empty collection, too many keys, a byte or char array, or an expression that throws.
 */
final class KeyTemplate {

    private final String source;

    private final String origin;

    private final Segment[] segments;

    /** The default of {@code redis-lock.max-keys-per-call}. */
    static final int DEFAULT_MAX_KEYS = 100;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final int literalLength;

    /**
     * The literal of a template that is a literal and one value part ({@code "order:#id"}, the most common
     * shape), whose single key is made by one concatenation; {@code null} for any other shape.
     */
    private final @Nullable String literalBeforeValue;

    /** The most keys one call may lock, all templates of its method together. */
    private final int maxKeys;

    KeyTemplate(String source, String origin, List<Segment> segments, int maxKeys) {
        this.source = source;
        this.origin = origin;
        this.maxKeys = maxKeys;
        this.segments = segments.toArray(new Segment[0]);
        int length = 0;
        for (Segment segment : this.segments) {
            if (segment instanceof Literal literal) {
                length += literal.text.length();
            }
        }
        this.literalLength = length;
        this.literalBeforeValue = (this.segments.length == 2 && this.segments[0] instanceof Literal literal
                && !(this.segments[1] instanceof Literal)) ? literal.text : null;
    }

    /** The template as written in the annotation. */
    String source() {
        return this.source;
    }

    /**
     * The keys of a call whose method has this one template. The common shape's one key comes back as an
     * immutable list of it, which the request keeps as it is: no list to fill and copy per call.
     * @throws LockException as {@link #resolve(KeyEvaluation, List)} does
     */
    List<String> resolve(KeyEvaluation evaluation) {
        if (this.literalBeforeValue != null && this.maxKeys > 0) {
            Object value = this.segments[1].value(evaluation, this);
            if (isPlain(value)) {
                return List.of(joined(this.literalBeforeValue, value, this.segments[1]));
            }
            List<String> keys = new ArrayList<>();
            resolve(evaluation, keys, value);
            return keys;
        }
        List<String> keys = new ArrayList<>(1);
        resolve(evaluation, keys);
        return keys;
    }

    /**
     * Adds the key (or keys, for collection-valued parts) this template yields for one call.
     * @throws LockException if a part is null, empty or a byte/char array, or the call's keys would be more than
     * the maximum (counted with those already in {@code keys}, before any is built)
     */
    void resolve(KeyEvaluation evaluation, List<String> keys) {
        if (this.literalBeforeValue != null) {
            Object value = this.segments[1].value(evaluation, this);
            if (isPlain(value)) {
                if (keys.size() >= this.maxKeys) {
                    throw tooMany();
                }
                keys.add(joined(this.literalBeforeValue, value, this.segments[1]));
                return;
            }
            // Null, a collection or an array: the general path, with the value it has (evaluated once).
            resolve(evaluation, keys, value);
            return;
        }
        resolve(evaluation, keys, null);
    }

    /** A value that makes one key part: not null, no collection, no array. */
    private static boolean isPlain(@Nullable Object value) {
        return value != null && !(value instanceof Collection<?>) && !value.getClass().isArray();
    }

    /**
     * The literal and one value, not null, no collection or array: a number needs no escaping (digits and a minus
     * sign) and goes into the concatenation as it is, anything else as its escaped text; one string either way.
     */
    private String joined(String literal, Object value, Segment segment) {
        if (value instanceof Long number) {
            return literal + number.longValue();
        }
        if (value instanceof Integer number) {
            return literal + number.intValue();
        }
        return literal.concat(text(value, segment));
    }

    /**
     * The general path: literals and values in order, collections and arrays expanded.
     * @param secondValue the value of the second part when the caller evaluated it already (see
     * {@link #literalBeforeValue}), else ignored
     */
    private void resolve(KeyEvaluation evaluation, List<String> keys, @Nullable Object secondValue) {
        StringBuilder single = new StringBuilder(this.literalLength + 16);
        List<StringBuilder> many = null;
        for (int i = 0; i < this.segments.length; i++) {
            Segment segment = this.segments[i];
            if (segment instanceof Literal literal) {
                if (many == null) {
                    single.append(literal.text);
                }
                else {
                    for (StringBuilder key : many) {
                        key.append(literal.text);
                    }
                }
                continue;
            }
            Object value = (i == 1 && this.literalBeforeValue != null) ? secondValue : segment.value(evaluation, this);
            if (value instanceof byte[] || value instanceof char[]) {
                throw failure("'" + segment.describe() + "' is a " + value.getClass().getSimpleName() + ", which is "
                        + "neither text nor a collection of keys; make it text in the template, e.g. #{new "
                        + "String(...)} or a hex string");
            }
            if (value instanceof Collection<?> || (value != null && value.getClass().isArray())) {
                int prefixes = (many != null) ? many.size() : 1;
                List<String> elements = elements(value, segment, (this.maxKeys - keys.size()) / prefixes);
                List<StringBuilder> expanded = new ArrayList<>(prefixes * elements.size());
                for (StringBuilder prefix : (many != null) ? many : List.of(single)) {
                    for (String element : elements) {
                        expanded.add(new StringBuilder(prefix).append(element));
                    }
                }
                many = expanded;
            }
            else {
                String text = text(value, segment);
                if (many == null) {
                    single.append(text);
                }
                else {
                    for (StringBuilder key : many) {
                        key.append(text);
                    }
                }
            }
        }
        if (many == null) {
            if (keys.size() >= this.maxKeys) {
                throw tooMany();
            }
            keys.add(single.toString());
        }
        else {
            for (StringBuilder key : many) {
                keys.add(key.toString());
            }
        }
    }

    /** The elements as escaped key parts; more than {@code most} fails before the next one is made. */
    private List<String> elements(Object value, Segment segment, int most) {
        List<String> elements = new ArrayList<>();
        if (value instanceof Collection<?> collection) {
            if (collection.size() > most) {
                throw tooMany();
            }
            for (Object element : collection) {
                elements.add(text(element, segment));
            }
        }
        else {
            int length = Array.getLength(value);
            if (length > most) {
                throw tooMany();
            }
            for (int i = 0; i < length; i++) {
                elements.add(text(Array.get(value, i), segment));
            }
        }
        if (elements.isEmpty()) {
            throw failure("'" + segment.describe() + "' is an empty collection, which would lock nothing");
        }
        return elements;
    }

    private LockException tooMany() {
        return failure("the call would lock more than " + this.maxKeys + " keys (redis-lock.max-keys-per-call)");
    }

    /** The value as a key part: its text, escaped. */
    private String text(Object value, Segment segment) {
        if (value == null) {
            throw failure("'" + segment.describe() + "' is null");
        }
        String text = value.toString();
        if (text.isEmpty()) {
            throw failure("'" + segment.describe() + "' is empty");
        }
        return escaped(text);
    }

    /**
     * A value as it goes into a key: '%', ':', '{', '}', '~' and control characters become {@code %XX} (their
     * code in hex), everything else stays. One-to-one, and the same value always gives the same part; a value
     * without those characters (the common case: ids, SKUs, names) is used as it is, without a copy.
     */
    static String escaped(String text) {
        int i = 0;
        while (i < text.length() && !escapes(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder escaped = new StringBuilder(text.length() + 8).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (escapes(c)) {
                escaped.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
            else {
                escaped.append(c);
            }
        }
        return escaped.toString();
    }

    private static boolean escapes(char c) {
        return c == '%' || c == ':' || c == '{' || c == '}' || c == '~' || c < 0x20 || (c >= 0x7F && c <= 0x9F);
    }

    LockException failure(String problem) {
        return new LockException("Lock key '" + this.source + "' of " + this.origin + ": " + problem);
    }

    @Override
    public String toString() {
        return this.source;
    }

    /** One part of a template. */
    interface Segment {

        Object value(KeyEvaluation evaluation, KeyTemplate template);

        String describe();
    }

    record Literal(String text) implements Segment {

        @Override
        public Object value(KeyEvaluation evaluation, KeyTemplate template) {
            return this.text;
        }

        @Override
        public String describe() {
            return this.text;
        }
    }

    /** A bare parameter reference ({@code #id}, {@code #p0}) read straight from the argument array. */
    record Argument(int index, String reference) implements Segment {

        @Override
        public Object value(KeyEvaluation evaluation, KeyTemplate template) {
            return evaluation.argument(this.index);
        }

        @Override
        public String describe() {
            return this.reference;
        }
    }

    /** Anything else: a parsed SpEL expression. */
    record Spel(Expression expression, String text) implements Segment {

        @Override
        public Object value(KeyEvaluation evaluation, KeyTemplate template) {
            try {
                return this.expression.getValue(evaluation.context());
            }
            catch (RuntimeException ex) {
                // SpEL wraps its own failures in EvaluationException but lets a called method's exception through.
                LockException failure = template.failure("'" + this.text + "' could not be evaluated: " + ex.getMessage());
                failure.initCause(ex);
                throw failure;
            }
        }

        @Override
        public String describe() {
            return this.text;
        }
    }

}
