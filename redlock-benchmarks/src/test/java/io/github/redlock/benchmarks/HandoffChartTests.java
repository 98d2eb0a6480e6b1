package io.github.redlock.benchmarks;

import java.awt.geom.Rectangle2D;
import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The handoff chart shows every contender at every thread count with its acquisitions per second and its ratio to
 * Redisson's {@code RLock}, on a linear axis from 0; its title, longer than the picture is wide, wraps inside it.
 */
class HandoffChartTests {

    private static final String SUBTITLE = "Measured 2026-11-25 on five local nodes (redis-server 7.0.15), 2 cores, OpenJDK 17.0.15; "
            + "1 fork, 2 + 3 × 5 s";

    @Test
    void everyContenderHasItsBarWithItsRateAndItsRatioToRLock() throws Exception {
        SvgPicture svg = SvgPicture.parse(chart().toSvg());
        assertThat(svg.text()).contains(HandoffChart.TITLE, SUBTITLE, HandoffChart.AXIS, "this starter (5 nodes)",
                "Redisson (RLock: one node; RedissonRedLock: 5 nodes)");
        assertThat(svg.strings()).contains("8 threads", "32 threads", "redissonRedlock", "redissonSingle", "redlock",
                "221/s (0.38× RLock)", "578/s (1.00× RLock)", "623/s (1.08× RLock)", "196/s (0.36× RLock)", "539/s (1.00× RLock)",
                "577/s (1.07× RLock)");
        List<Rectangle2D> ours = byRow(svg.rectangles(Charts.OURS));
        List<Rectangle2D> redisson = byRow(svg.rectangles(Charts.REDISSON));
        assertThat(ours).hasSize(2);
        assertThat(redisson).hasSize(4);
        // From 0, and as long as the rate: redlock's 623/s against RLock's 578/s at 8 threads.
        assertThat(ours.get(0).getMinX()).isCloseTo(redisson.get(0).getMinX(), within(0.1));
        assertThat(ours.get(0).getWidth() / redisson.get(1).getWidth()).isCloseTo(623.0 / 578, within(0.005));
    }

    @Test
    void theTitleWrapsInsideThePictureAndEveryTextFitsIt() throws Exception {
        SvgPicture svg = SvgPicture.parse(chart().toSvg());
        assertThat(svg.texts()).allSatisfy((text) -> assertThat(text.fitsIn(svg.width())).as("%s fits in %s", text, svg.width())
            .isTrue());
        assertThat(svg.text()).startsWith(HandoffChart.TITLE);
    }

    @Test
    void withoutRLockTheBarsHaveNoRatio() throws Exception {
        HandoffChart chart = new HandoffChart(SUBTITLE);
        chart.add(8, "redissonRedlock", 221);
        chart.add(8, "redlock", 623);
        assertThat(SvgPicture.parse(chart.toSvg()).strings()).contains("221/s", "623/s").noneMatch((text) -> text.contains("RLock)"));
    }

    @Test
    void theSameResultsDrawTheSameDocument() {
        assertThat(chart().toSvg()).isEqualTo(chart().toSvg());
    }

    private static List<Rectangle2D> byRow(List<Rectangle2D> bars) {
        return bars.stream().sorted(Comparator.comparingDouble(Rectangle2D::getY)).toList();
    }

    private static HandoffChart chart() {
        HandoffChart chart = new HandoffChart(SUBTITLE);
        chart.add(8, "redissonRedlock", 221);
        chart.add(8, "redissonSingle", 578);
        chart.add(8, "redlock", 623);
        chart.add(32, "redissonRedlock", 196);
        chart.add(32, "redissonSingle", 539);
        chart.add(32, "redlock", 577);
        return chart;
    }

}
