package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * One measured number: what was measured ({@code section}, {@code metric}, {@code unit}) for which lock
 * implementation, and, where the measurement gives one, its error (JMH's 99.9% confidence half-width; NaN
 * otherwise), so that a reader can tell a real difference from this machine's noise. Figures of the same
 * section and metric are compared with each other in the result table.
 */
public record Figure(String section, String metric, String unit, String implementation, double value,
        double error) {

    /** A figure without an error estimate. */
    public Figure(String section, String metric, String unit, String implementation, double value) {
        this(section, metric, unit, implementation, value, Double.NaN);
    }

    /**
     * The same figures, metric by metric (every implementation's throughput, then every allocation, ...), in
     * the order the metrics first appear: the table reads best when peers of one metric stand together.
     */
    public static List<Figure> groupedByMetric(List<Figure> figures) {
        List<String> metrics = new ArrayList<>();
        for (Figure figure : figures) {
            if (!metrics.contains(figure.metric())) {
                metrics.add(figure.metric());
            }
        }
        List<Figure> ordered = new ArrayList<>(figures.size());
        for (String metric : metrics) {
            for (Figure figure : figures) {
                if (figure.metric().equals(metric)) {
                    ordered.add(figure);
                }
            }
        }
        return ordered;
    }
}
