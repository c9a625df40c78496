package io.github.redislock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metadata the build generates for IDEs and Spring Boot: every property described, with its default,
 * whatever JDK compiled it (JDK 23+ runs annotation processors only from the declared processor path).
 */
class ConfigurationMetadataTest {

    @Test
    void everyPropertyHasADescriptionAndADefault() throws IOException {
        String json = new ClassPathResource("META-INF/spring-configuration-metadata.json")
            .getContentAsString(StandardCharsets.UTF_8);
        List<Map<String, Object>> properties = JsonPath.read(json, "$.properties[?(@.name =~ /redis-lock\\..*/)]");
        assertThat(properties).extracting((property) -> property.get("name"))
            .containsExactlyInAnyOrder("redis-lock.enabled", "redis-lock.connection-factory", "redis-lock.key-prefix",
                    "redis-lock.wait-time", "redis-lock.lease-time", "redis-lock.on-lease-lost",
                    "redis-lock.verify-before-commit", "redis-lock.order", "redis-lock.local-handover-limit",
                    "redis-lock.local-handover-time-limit", "redis-lock.local-handover-rejoin", "redis-lock.clock-drift",
                    "redis-lock.replicas-to-acknowledge",
                    "redis-lock.replication-timeout", "redis-lock.max-keys-per-call", "redis-lock.instance-ttl",
                    "redis-lock.redlock.nodes", "redis-lock.leader.name", "redis-lock.leader.yield-pause");
        assertThat(properties).allSatisfy((property) -> {
            assertThat((String) property.get("description")).as("description of %s", property.get("name"))
                .isNotBlank();
        });
        // The election's name has none: unset, the application stands in no election.
        assertThat(properties).filteredOn((property) -> !"redis-lock.leader.name".equals(property.get("name")))
            .allSatisfy((property) -> assertThat(property).as("default of %s", property.get("name"))
                .containsKey("defaultValue"));
        assertThat(properties).filteredOn((property) -> "redis-lock.order".equals(property.get("name")))
            .singleElement()
            .satisfies((order) -> assertThat(order.get("defaultValue")).isEqualTo(RedisLockProperties.DEFAULT_ORDER));
    }

    @Test
    void theEndpointsSettingsAreDescribed() throws IOException {
        String json = new ClassPathResource("META-INF/spring-configuration-metadata.json")
            .getContentAsString(StandardCharsets.UTF_8);
        List<String> names = JsonPath.read(json, "$.properties[*].name");
        assertThat(names).contains("management.endpoint.redislocks.access")
            .allSatisfy((name) -> assertThat(name)
                .matches("redis-lock\\..*|management\\.endpoint\\.redislocks\\..*|management\\.info\\.leadership\\..*"));
    }

    @Test
    void autoConfigurationConditionsArePrecomputed() throws IOException {
        Properties metadata = new Properties();
        try (InputStream in = new ClassPathResource("META-INF/spring-autoconfigure-metadata.properties").getInputStream()) {
            metadata.load(in);
        }
        assertThat(metadata.getProperty(RedisLockStoreAutoConfiguration.class.getName() + ".ConditionalOnClass"))
            .isEqualTo("org.springframework.data.redis.core.StringRedisTemplate");
    }
}
