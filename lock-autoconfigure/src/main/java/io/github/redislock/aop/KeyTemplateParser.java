package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Turns key templates into {@link KeyTemplate}s and checks them against the method they belong to:
 * <ul>
 * <li>{@code #{...}} is a SpEL expression, copied up to its matching brace;</li>
 * <li>{@code #name}, optionally followed by {@code .property} steps, is a parameter reference (short
 * form); {@code #p0}/{@code #a0} refer to parameters by position;</li>
 * <li>everything else is literal text ({@code {hash-tags}} included).</li>
 * </ul>
 * Every variable must be a parameter of the method (or {@code #root}/{@code #this}) and every
 * {@code @bean} must exist, so a typo fails at start-up instead of at the first call.
 */
final class KeyTemplateParser {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");

    private final BeanFactory beanFactory;

    private final IntSupplier maxKeysPerCall;

    /** @param beanFactory used to check {@code @bean} references; may be {@code null} to skip that check */
    KeyTemplateParser(BeanFactory beanFactory) {
        this(beanFactory, () -> KeyTemplate.DEFAULT_MAX_KEYS);
    }

    /**
     * @param beanFactory used to check {@code @bean} references; may be {@code null} to skip that check
     * @param maxKeysPerCall the most keys one call may lock, read when a template is parsed
     */
    KeyTemplateParser(BeanFactory beanFactory, IntSupplier maxKeysPerCall) {
        this.beanFactory = beanFactory;
        this.maxKeysPerCall = maxKeysPerCall;
    }

    /**
     * @param source the template as written
     * @param method the annotated method whose parameters the template may use
     * @param origin the method in {@code Class#method} form, for messages
     * @throws IllegalArgumentException describing the first problem found
     */
    KeyTemplate parse(String source, Method method, String origin) {
        if (source == null || source.isBlank()) {
            throw new IllegalArgumentException("a key must not be empty");
        }
        String[] names = KeyEvaluation.parameterNames(method);
        int count = method.getParameterCount();
        List<KeyTemplate.Segment> segments = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (c == '#' && i + 1 < source.length() && source.charAt(i + 1) == '{') {
                int end = closingBrace(source, i + 2);
                String inner = source.substring(i + 2, end).trim();
                if (inner.isEmpty()) {
                    throw new IllegalArgumentException("empty expression '#{}' in key '" + source + "'");
                }
                flush(literal, segments);
                segments.add(new KeyTemplate.Spel(parseSpel(inner, source, names, count), "#{" + inner + "}"));
                i = end + 1;
            }
            else if (c == '#' && i + 1 < source.length() && Character.isJavaIdentifierStart(source.charAt(i + 1))) {
                int end = referenceEnd(source, i + 1);
                String reference = source.substring(i, end);
                flush(literal, segments);
                segments.add(shortReference(reference, source, names, count));
                i = end;
            }
            else {
                literal.append(c);
                i++;
            }
        }
        flush(literal, segments);
        checkSeparated(segments, source);
        return new KeyTemplate(source, origin, segments, this.maxKeysPerCall.getAsInt());
    }

    /**
     * Values are escaped so that none contains ':' (see {@link KeyTemplate#escaped}); two values with a ':'
     * between them therefore make a different key for every different pair. Two values without one
     * ({@code #a-#b}: "1-2" and "3" or "1" and "2-3") could make the same key for different calls.
     */
    private static void checkSeparated(List<KeyTemplate.Segment> segments, String source) {
        KeyTemplate.Segment previousValue = null;
        boolean separated = false;
        for (KeyTemplate.Segment segment : segments) {
            if (segment instanceof KeyTemplate.Literal literal) {
                separated |= literal.text().indexOf(':') >= 0;
                continue;
            }
            if (previousValue != null && !separated) {
                throw new IllegalArgumentException("'" + previousValue.describe() + "' and '" + segment.describe()
                        + "' in key '" + source + "' are not separated by ':', so different values could make the "
                        + "same key; put a ':' between them");
            }
            previousValue = segment;
            separated = false;
        }
    }

    private KeyTemplate.Segment shortReference(String reference, String source, String[] names, int count) {
        String variable = reference.substring(1);
        if (variable.indexOf('.') < 0) {
            int index = parameterIndex(variable, names, count);
            if (index >= 0) {
                return new KeyTemplate.Argument(index, reference);
            }
        }
        return new KeyTemplate.Spel(parseSpel(reference, source, names, count), reference);
    }

    private SpelExpression parseSpel(String expression, String source, String[] names, int count) {
        SpelExpression parsed;
        try {
            parsed = (SpelExpression) PARSER.parseExpression(expression);
        }
        catch (ParseException ex) {
            throw new IllegalArgumentException("key '" + source + "' has an invalid expression '" + expression + "': "
                    + ex.getSimpleMessage(), ex);
        }
        check(parsed.getAST(), source, names, count);
        return parsed;
    }

    private void check(SpelNode node, String source, String[] names, int count) {
        if (node instanceof VariableReference) {
            String variable = node.toStringAST().substring(1);
            if (!variable.equals("root") && !variable.equals("this") && parameterIndex(variable, names, count) < 0) {
                throw new IllegalArgumentException(unknownVariable(variable, source, names, count));
            }
        }
        else if (node instanceof BeanReference) {
            String bean = node.toStringAST().substring(1);
            if (bean.length() > 1 && bean.startsWith("'") && bean.endsWith("'")) {
                bean = bean.substring(1, bean.length() - 1);
            }
            if (this.beanFactory != null && !this.beanFactory.containsBean(bean)) {
                throw new IllegalArgumentException("key '" + source + "' refers to bean '@" + bean
                        + "', but there is no bean of that name");
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            check(node.getChild(i), source, names, count);
        }
    }

    private static String unknownVariable(String variable, String source, String[] names, int count) {
        if (names == null && !POSITIONAL.matcher(variable).matches()) {
            return "key '" + source + "' refers to '#" + variable + "', but parameter names are not available: "
                    + "compile with '-parameters' or refer to parameters by position (#p0, #p1, ...)";
        }
        String known = (names != null) ? Arrays.toString(names) : "none by name";
        return "key '" + source + "' refers to '#" + variable + "', which is not a parameter of the method "
                + "(parameters: " + known + ", or #p0..#p" + (count - 1) + ")";
    }

    /** The parameter a variable names, or -1. */
    private static int parameterIndex(String variable, String[] names, int count) {
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(variable)) {
                    return i;
                }
            }
        }
        Matcher positional = POSITIONAL.matcher(variable);
        if (positional.matches()) {
            String digits = positional.group(1);
            int index = (digits.length() < 6) ? Integer.parseInt(digits) : Integer.MAX_VALUE;
            return (index < count) ? index : -1;
        }
        return -1;
    }

    /** End (exclusive) of {@code name(.name)*} starting at {@code start}. */
    private static int referenceEnd(String source, int start) {
        int i = identifierEnd(source, start);
        while (i + 1 < source.length() && source.charAt(i) == '.' && Character.isJavaIdentifierStart(source.charAt(i + 1))) {
            i = identifierEnd(source, i + 1);
        }
        return i;
    }

    private static int identifierEnd(String source, int start) {
        int i = start + 1;
        while (i < source.length() && Character.isJavaIdentifierPart(source.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Index of the brace closing an expression whose body starts at {@code start}; quotes are skipped. */
    private static int closingBrace(String source, int start) {
        int depth = 0;
        char quote = 0;
        for (int i = start; i < source.length(); i++) {
            char c = source.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            }
            else if (c == '\'' || c == '"') {
                quote = c;
            }
            else if (c == '{') {
                depth++;
            }
            else if (c == '}') {
                if (depth == 0) {
                    return i;
                }
                depth--;
            }
        }
        throw new IllegalArgumentException("key '" + source + "' has an expression '#{' without its closing '}'");
    }

    private static void flush(StringBuilder literal, List<KeyTemplate.Segment> segments) {
        if (literal.length() > 0) {
            segments.add(new KeyTemplate.Literal(literal.toString()));
            literal.setLength(0);
        }
    }
}
