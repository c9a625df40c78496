package io.github.redislock.autoconfigure;

import java.util.Arrays;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Which of the application's {@link RedisConnectionFactory} beans the locks use: the one
 * {@code redis-lock.connection-factory} names, else the primary or only one. Anything else fails the start-up
 * naming the candidates, rather than leaving the locks out.
 */
final class ConnectionFactoryChoice {

    private static final String PROPERTY = "redis-lock.connection-factory";

    private ConnectionFactoryChoice() {
    }

    static RedisConnectionFactory choose(ListableBeanFactory beanFactory, String name) {
        String[] candidates = beanFactory.getBeanNamesForType(RedisConnectionFactory.class);
        if (!name.isEmpty()) {
            try {
                return beanFactory.getBean(name, RedisConnectionFactory.class);
            }
            catch (NoSuchBeanDefinitionException ex) {
                throw new LockConfigurationException(PROPERTY + " names '" + name + "', but there is no "
                        + "RedisConnectionFactory bean of that name; there are: " + Arrays.toString(candidates),
                        "Set " + PROPERTY + " to one of " + Arrays.toString(candidates) + ".");
            }
        }
        RedisConnectionFactory unique = beanFactory.getBeanProvider(RedisConnectionFactory.class).getIfUnique();
        if (unique == null) {
            throw new LockConfigurationException("@DistributedLock needs one RedisConnectionFactory, but the "
                    + "application has " + candidates.length + " and none is @Primary: "
                    + Arrays.toString(candidates), "Set " + PROPERTY + " to the bean name of the one to lock on ("
                    + String.join(" or ", candidates) + "), or mark one of them @Primary.");
        }
        return unique;
    }
}
