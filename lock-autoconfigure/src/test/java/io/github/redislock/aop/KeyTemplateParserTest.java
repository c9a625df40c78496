package io.github.redislock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redislock.LockException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyTemplateParserTest {

    private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

    private final KeyTemplateParser parser = new KeyTemplateParser(this.beanFactory);

    @Test
    void shortFormResolvesParameterByName() {
        assertThat(resolve("sku:#id:lock", "byId", 42L)).containsExactly("sku:42:lock");
    }

    @Test
    void templateFormResolvesTheSame() {
        assertThat(resolve("sku:#{#id}:lock", "byId", 42L)).containsExactly("sku:42:lock");
    }

    @Test
    void shortFormFollowsPropertyPath() {
        assertThat(resolve("order:#order.sku:lock", "byOrder", new Order("A-1", 3))).containsExactly("order:A-1:lock");
    }

    @Test
    void positionalReferencesWork() {
        assertThat(resolve("sku:#p0:lock", "byId", 7L)).containsExactly("sku:7:lock");
        assertThat(resolve("sku:#a0:lock", "byId", 7L)).containsExactly("sku:7:lock");
    }

    @Test
    void templateFormTakesAnyExpression() {
        assertThat(resolve("order:#{#order.sku.toLowerCase() + '-' + (#order.quantity * 2)}", "byOrder",
                new Order("ABC", 3))).containsExactly("order:abc-6");
    }

    @Test
    void rootObjectIsAvailable() {
        assertThat(resolve("#{methodName}:#{targetClass.simpleName}:#id", "byId", 1L))
                .containsExactly("byId:Targets:1");
    }

    @Test
    void hashTagBracesStayLiteral() {
        assertThat(resolve("{sku:#id}:lock", "byId", 9L)).containsExactly("{sku:9}:lock");
        assertThat(resolve("{sku:#{#id}}:lock", "byId", 9L)).containsExactly("{sku:9}:lock");
    }

    @Test
    void hashWithoutIdentifierIsLiteral() {
        assertThat(resolve("a#:#1:#id", "byId", 5L)).containsExactly("a#:#1:5");
    }

    @Test
    void beanReferencesResolve() {
        this.beanFactory.registerSingleton("tenant", new Tenant("acme"));
        assertThat(resolve("#{@tenant.name}:#id", "byId", 5L)).containsExactly("acme:5");
    }

    @Test
    void collectionValuedPartYieldsOneKeyPerElement() {
        assertThat(resolve("sku:#{#skus}:lock", "bySkus", List.of("a", "b"))).containsExactly("sku:a:lock", "sku:b:lock");
        assertThat(resolve("sku:#skus", "bySkus", Set.of("x"))).containsExactly("sku:x");
    }

    @Test
    void unknownParameterFailsNamingIt() {
        assertThatIllegalArgumentException().isThrownBy(() -> parse("sku:#idd:lock", "byId"))
                .withMessageContaining("'#idd'").withMessageContaining("[id]");
        assertThatIllegalArgumentException().isThrownBy(() -> parse("sku:#{#nope + 1}", "byId"))
                .withMessageContaining("'#nope'");
        assertThatIllegalArgumentException().isThrownBy(() -> parse("sku:#p1", "byId"))
                .withMessageContaining("'#p1'");
    }

    @Test
    void malformedExpressionFails() {
        assertThatIllegalArgumentException().isThrownBy(() -> parse("sku:#{#id +}:lock", "byId"))
                .withMessageContaining("sku:#{#id +}:lock");
        assertThatIllegalArgumentException().isThrownBy(() -> parse("sku:#{#id:lock", "byId"))
                .withMessageContaining("closing '}'");
        assertThatIllegalArgumentException().isThrownBy(() -> parse("sku:#{}", "byId"))
                .withMessageContaining("empty expression");
        assertThatIllegalArgumentException().isThrownBy(() -> parse(" ", "byId")).withMessageContaining("empty");
    }

    @Test
    void unknownBeanFails() {
        assertThatIllegalArgumentException().isThrownBy(() -> parse("#{@missing.name}", "byId"))
                .withMessageContaining("'@missing'");
    }

    @Test
    void nullPartFailsAtCallNamingTemplateAndPart() {
        assertThatThrownBy(() -> resolve("sku:#id:lock", "byId", new Object[] { null })).isInstanceOf(LockException.class)
                .hasMessageContaining("sku:#id:lock").hasMessageContaining("'#id' is null")
                .hasMessageContaining("Targets#byId");
        assertThatThrownBy(() -> resolve("order:#order.sku", "byOrder", new Order(null, 1)))
                .isInstanceOf(LockException.class).hasMessageContaining("'#order.sku' is null");
    }

    @Test
    void emptyPartFails() {
        assertThatThrownBy(() -> resolve("order:#order.sku", "byOrder", new Order("", 1))).isInstanceOf(LockException.class)
                .hasMessageContaining("'#order.sku' is empty");
        assertThatThrownBy(() -> resolve("sku:#skus", "bySkus", List.of())).isInstanceOf(LockException.class)
                .hasMessageContaining("empty collection");
    }

    @Test
    void literalAndOneValueMakeTheKeyOfEveryValueKind() {
        assertThat(resolve("sku:#id", "byId", -42L)).containsExactly("sku:-42");
        assertThat(resolve("n:#p0", "byNumber", 7)).containsExactly("n:7");
        assertThat(resolve("order:#order.sku", "byOrder", new Order("a:b{c}", 1))).containsExactly("order:a%3Ab%7Bc%7D");
        assertThat(resolve("sku:#skus", "bySkus", List.of("a", "b"))).containsExactly("sku:a", "sku:b");
    }

    @Test
    void literalAndOneNullValueFailsNamingThePart() {
        assertThatThrownBy(() -> resolve("sku:#id", "byId", (Object) null)).isInstanceOf(LockException.class)
                .hasMessageContaining("'#id' is null");
    }

    @Test
    void literalAndOneByteArrayValueIsRefused() {
        assertThatThrownBy(() -> resolve("sku:#p0", "byBytes", (Object) new byte[] { 1 }))
                .isInstanceOf(LockException.class).hasMessageContaining("is a byte[]");
    }

    @Test
    void failingExpressionNamesTemplate() {
        assertThatThrownBy(() -> resolve("sku:#{#order.sku.substring(10)}", "byOrder", new Order("ab", 1)))
                .isInstanceOf(LockException.class).hasMessageContaining("could not be evaluated")
                .hasCauseInstanceOf(StringIndexOutOfBoundsException.class);
    }

    private KeyTemplate parse(String source, String methodName) {
        Method method = method(methodName);
        return this.parser.parse(source, method, "Targets#" + methodName);
    }

    private List<String> resolve(String source, String methodName, Object... args) {
        Method method = method(methodName);
        KeyTemplate template = this.parser.parse(source, method, "Targets#" + methodName);
        List<String> keys = new ArrayList<>();
        template.resolve(new KeyEvaluation(method, args, new Targets(), Targets.class, this.beanFactory), keys);
        return keys;
    }

    private static Method method(String name) {
        for (Method method : ReflectionUtils.getDeclaredMethods(Targets.class)) {
            if (method.getName().equals(name)) {
                return method;
            }
        }
        throw new IllegalArgumentException(name);
    }

    public record Order(String sku, int quantity) {
    }

    public record Tenant(String name) {
    }

    static class Targets {

        void byId(Long id) {
        }

        void byOrder(Order order) {
        }

        void bySkus(java.util.Collection<String> skus) {
        }

        void byNumber(int number) {
        }

        void byBytes(byte[] bytes) {
        }
    }
}
