package io.github.redislock.zookeeper.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/** The IDE metadata of the ZooKeeper properties: each one described, with its default where it has one. */
class ZooKeeperConfigurationMetadataTest {

    @Test
    void everyPropertyIsDescribed() throws IOException {
        String json = new ClassPathResource("META-INF/spring-configuration-metadata.json", getClass().getClassLoader())
            .getContentAsString(StandardCharsets.UTF_8);
        List<Map<String, Object>> properties = JsonPath.read(json,
                "$.properties[?(@.name =~ /redis-lock\\.zookeeper\\..*/)]");
        assertThat(properties).extracting((property) -> property.get("name"))
            .containsExactlyInAnyOrder("redis-lock.zookeeper.connect-string", "redis-lock.zookeeper.session-timeout",
                    "redis-lock.zookeeper.connection-timeout", "redis-lock.zookeeper.base-path");
        assertThat(properties).allSatisfy((property) -> assertThat((String) property.get("description"))
            .as("description of %s", property.get("name"))
            .isNotBlank());
        assertThat(properties).filteredOn((property) -> !"redis-lock.zookeeper.connect-string".equals(property.get("name")))
            .allSatisfy((property) -> assertThat(property).containsKey("defaultValue"));
    }
}
