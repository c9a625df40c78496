package io.github.redislock.aop;

import java.lang.reflect.Method;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.annotation.DistributedLock;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

class LockAotHintsTest {

    private static final SpringFactoriesLoader AOT_FACTORIES = SpringFactoriesLoader
            .forResourceLocation("META-INF/spring/aot.factories");

    /** The Lua scripts' hints: {@code io.github.redislock.redis.support.LockScriptsRuntimeHintsTest}. */
    @Test
    void theKeyExpressionRootIsRegisteredThroughAotFactories() {
        RuntimeHints hints = new RuntimeHints();
        AOT_FACTORIES.load(RuntimeHintsRegistrar.class)
                .forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));

        assertThat(RuntimeHintsPredicates.reflection().onType(KeyExpressionRoot.class)
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
    }

    @Test
    void theFallbackMethodsOfALockedBeanAreRegisteredForInvocation() throws Exception {
        RuntimeHints hints = hintsFor(Inventory.class);

        Method fallback = Inventory.class.getDeclaredMethod("busy", long.class);
        Method withException = Inventory.class.getDeclaredMethod("busy", long.class, LockNotAcquiredException.class);
        // onMethod(..).invoke(): the form both Spring Framework 6.2 (Boot 3.5) and 7 have.
        assertThat(RuntimeHintsPredicates.reflection().onMethod(fallback).invoke()).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethod(withException).invoke()).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                .onMethod(Inventory.class.getDeclaredMethod("purchase", long.class)).invoke()).rejects(hints);
    }

    @Test
    void aBeanWithoutFallbacksContributesNothing() {
        BeanRegistrationAotProcessor processor = processor();
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(String.class));
        assertThat(processor.processAheadOfTime(RegisteredBean.of(beanFactory, "plain"))).isNull();
    }

    private static RuntimeHints hintsFor(Class<?> beanClass) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
        BeanRegistrationAotContribution contribution = processor()
                .processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
        assertThat(contribution).isNotNull();
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(LockAotHintsTest.class)), new InMemoryGeneratedFiles());
        contribution.applyTo(generation, null);
        return generation.getRuntimeHints();
    }

    private static BeanRegistrationAotProcessor processor() {
        return AOT_FACTORIES.load(BeanRegistrationAotProcessor.class).stream()
                .filter(LockAotHints.class::isInstance).findFirst().orElseThrow();
    }

    static class Inventory {

        @DistributedLock(key = "sku:#id:lock", fallbackMethod = "busy")
        public String purchase(long id) {
            return "bought";
        }

        String busy(long id) {
            return "busy";
        }

        String busy(long id, LockNotAcquiredException ex) {
            return "busy: " + ex.getMessage();
        }
    }
}
