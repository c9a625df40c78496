package io.github.redislock.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.sample.simulation.BuyerCrowd;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard in {@code docs/grafana} cannot rot: every metric name its PromQL queries, every label it
 * matches, groups or filters by, and every fixed label value it matches is one the running sample publishes on
 * {@code /actuator/prometheus}, after locks were taken, refused, handed over and lost on a real Redis.
 * Prometheus adds {@code job} and {@code instance} to every series it scrapes; those two are the only labels
 * allowed that the application does not publish.
 */
class GrafanaDashboardTest {

    static final Path DASHBOARD = Path.of("..", "docs", "grafana", "redis-lock-dashboard.json");

    /** Labels Prometheus itself puts on every scraped series. */
    private static final Set<String> TARGET_LABELS = Set.of("job", "instance");

    /** A metric name with its label matchers: {@code name{a="x", b=~"$v"}}. */
    private static final Pattern SELECTOR = Pattern.compile("\\b(redis_lock_[a-z0-9_]+)\\s*(\\{([^}]*)})?");

    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");

    /** {@code by (a, b)} and {@code without (a)}. */
    private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");

    @RegisterExtension
    static final SampleOnRedis sale = SampleOnRedis.instances(2,
            Map.of("flash-sale.processing-time", "2ms", "flash-sale.lock-wait-time", "20s"));

    @Test
    void everyMetricLabelAndValueTheDashboardQueriesIsPublished() throws Exception {
        List<String> queries = queries();
        assertThat(queries).as("the dashboard's queries").hasSizeGreaterThan(8);
        assertThat(problems(queries, exerciseAndScrape())).isEmpty();
    }

    @Test
    void theCheckCatchesAQueryOfSomethingNotPublished() throws Exception {
        Scrape scrape = exerciseAndScrape();
        assertThat(scrape.values.get("redis_lock_acquire_seconds_count|outcome")).contains("acquired",
                "not-acquired");
        assertThat(scrape.values.get("redis_lock_hold_seconds_count|outcome")).contains("released", "lost");
        assertThat(problems(List.of("sum(rate(redis_lock_acquired_total[5m]))",
                "sum by (route) (rate(redis_lock_handoffs_total{job=~\"$job\"}[5m]))",
                "rate(redis_lock_acquire_seconds_count{outcome=\"ok\"}[5m])",
                "redis_lock_held{application=\"x\"}"), scrape))
            .hasSize(4)
            .anySatisfy((problem) -> assertThat(problem).startsWith("redis_lock_acquired_total is not published"))
            .anySatisfy((problem) -> assertThat(problem).startsWith("redis_lock_handoffs_total has no label route"))
            .anySatisfy((problem) -> assertThat(problem).contains("never reads \"ok\""))
            .anySatisfy((problem) -> assertThat(problem).startsWith("redis_lock_held has no label application"));
    }

    /** What in the queries the scrape does not publish; empty when everything is. */
    static List<String> problems(List<String> queries, Scrape scrape) {
        List<String> problems = new ArrayList<>();
        for (String query : queries) {
            Set<String> metrics = new HashSet<>();
            Matcher selector = SELECTOR.matcher(query);
            while (selector.find()) {
                String metric = selector.group(1);
                metrics.add(metric);
                if (!scrape.labels.containsKey(metric)) {
                    problems.add(metric + " is not published (in: " + query + ")");
                    continue;
                }
                if (selector.group(3) == null) {
                    continue;
                }
                Matcher matcher = MATCHER.matcher(selector.group(3));
                while (matcher.find()) {
                    String label = matcher.group(1);
                    String value = matcher.group(3);
                    if (TARGET_LABELS.contains(label)) {
                        continue;
                    }
                    if (!scrape.labels.get(metric).contains(label)) {
                        problems.add(metric + " has no label " + label + " (in: " + query + ")");
                    }
                    else if (matcher.group(2).equals("=") && !value.contains("$")
                            && !scrape.values.getOrDefault(metric + "|" + label, Set.of()).contains(value)) {
                        problems.add(metric + "{" + label + "} never reads \"" + value + "\"; published: "
                                + scrape.values.get(metric + "|" + label));
                    }
                }
            }
            Matcher grouping = GROUPING.matcher(query);
            while (grouping.find()) {
                for (String label : grouping.group(1).split(",")) {
                    String trimmed = label.trim();
                    if (trimmed.isEmpty() || TARGET_LABELS.contains(trimmed)) {
                        continue;
                    }
                    for (String metric : metrics) {
                        if (scrape.labels.containsKey(metric) && !scrape.labels.get(metric).contains(trimmed)) {
                            problems.add(metric + " has no label " + trimmed + " to group by (in: " + query + ")");
                        }
                    }
                }
            }
        }
        return problems;
    }

    /** Every {@code expr} of the dashboard's panels and every query of its variables. */
    static List<String> queries() throws IOException {
        String json = Files.readString(DASHBOARD);
        List<String> queries = new ArrayList<>(JsonPath.read(json, "$..targets[*].expr"));
        List<Object> variables = JsonPath.read(json, "$.templating.list[*].query");
        for (Object variable : variables) {
            queries.add((variable instanceof Map<?, ?> map) ? String.valueOf(map.get("query")) : String.valueOf(variable));
        }
        return queries;
    }

    /**
     * Takes locks every way the dashboard draws (acquired, refused as busy, handed over, lost) on the first
     * instance, then reads its {@code /actuator/prometheus}.
     */
    private static Scrape exerciseAndScrape() throws Exception {
        List<URI> uris = sale.uris();
        assertThat(SampleHttp.put(uris.get(0), "/skus/9/stock?quantity=20").statusCode()).isEqualTo(200);
        // Contention on one SKU across two instances: hand-overs in Redis and between threads.
        new BuyerCrowd(uris, 16).buy(9, 40);
        // Busy for the whole wait: not acquired.
        DistributedLockTemplate template = sale.instances().bean(DistributedLockTemplate.class);
        RedisServer redis = sale.redis();
        redis.command("SET", "flash-sale:busy", "someone-else:1", "PX", "60000");
        try {
            template.run("busy", Duration.ZERO, null, () -> {
            });
        }
        catch (RuntimeException expected) {
            // LockNotAcquiredException: counted as not-acquired
        }
        // Lost while held: another client deleted the key before the release.
        template.run("lost", Duration.ZERO, null, () -> redis.command("DEL", "flash-sale:lost"));
        HttpResponse<String> response = SampleHttp.get(uris.get(0), "/actuator/prometheus");
        assertThat(response.statusCode()).isEqualTo(200);
        return Scrape.parse(response.body());
    }

    /** What a Prometheus scrape publishes: per metric its labels, per metric and label the values seen. */
    record Scrape(Map<String, Set<String>> labels, Map<String, Set<String>> values) {

        private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+\\S+.*$");

        static Scrape parse(String text) {
            Map<String, Set<String>> labels = new HashMap<>();
            Map<String, Set<String>> values = new HashMap<>();
            for (String line : text.split("\n")) {
                Matcher matcher = LINE.matcher(line);
                if (line.startsWith("#") || !matcher.matches()) {
                    continue;
                }
                String metric = matcher.group(1);
                Set<String> names = labels.computeIfAbsent(metric, (name) -> new TreeSet<>());
                if (matcher.group(3) != null) {
                    Matcher label = MATCHER.matcher(matcher.group(3));
                    while (label.find()) {
                        names.add(label.group(1));
                        values.computeIfAbsent(metric + "|" + label.group(1), (key) -> new TreeSet<>())
                            .add(label.group(3));
                    }
                }
            }
            return new Scrape(labels, values);
        }
    }
}
