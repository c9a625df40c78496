package io.github.redislock.aop;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.github.redislock.LockException;

import org.springframework.expression.Expression;

/**
 * A key template parsed once, at start-up, into literal text, direct argument references and SpEL
 * expressions; per call it only evaluates. A part that evaluates to a collection or array yields one key
 * per element (several such parts: every combination).
 * <p>
 * Every failure names the template and the method it belongs to: a part that is {@code null} or empty, an
 * empty collection, or an expression that throws.
 */
final class KeyTemplate {

    private final String source;

    private final String origin;

    private final Segment[] segments;

    private final int literalLength;

    KeyTemplate(String source, String origin, List<Segment> segments) {
        this.source = source;
        this.origin = origin;
        this.segments = segments.toArray(new Segment[0]);
        int length = 0;
        for (Segment segment : this.segments) {
            if (segment instanceof Literal literal) {
                length += literal.text.length();
            }
        }
        this.literalLength = length;
    }

    /** The template as written in the annotation. */
    String source() {
        return this.source;
    }

    /** Adds the key (or keys, for collection-valued parts) this template yields for one call. */
    void resolve(KeyEvaluation evaluation, List<String> keys) {
        StringBuilder single = new StringBuilder(this.literalLength + 16);
        List<StringBuilder> many = null;
        for (Segment segment : this.segments) {
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
            Object value = segment.value(evaluation, this);
            if (value instanceof Collection<?> || (value != null && value.getClass().isArray())) {
                List<String> elements = elements(value, segment);
                List<StringBuilder> expanded = new ArrayList<>();
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
            keys.add(single.toString());
        }
        else {
            for (StringBuilder key : many) {
                keys.add(key.toString());
            }
        }
    }

    private List<String> elements(Object value, Segment segment) {
        List<String> elements = new ArrayList<>();
        if (value instanceof Collection<?> collection) {
            for (Object element : collection) {
                elements.add(text(element, segment));
            }
        }
        else {
            int length = Array.getLength(value);
            for (int i = 0; i < length; i++) {
                elements.add(text(Array.get(value, i), segment));
            }
        }
        if (elements.isEmpty()) {
            throw failure("'" + segment.describe() + "' is an empty collection, which would lock nothing");
        }
        return elements;
    }

    private String text(Object value, Segment segment) {
        if (value == null) {
            throw failure("'" + segment.describe() + "' is null");
        }
        String text = value.toString();
        if (text.isEmpty()) {
            throw failure("'" + segment.describe() + "' is empty");
        }
        return text;
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
