package io.github.redlock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.LogTick;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.Tick;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;

/**
 * Draws the p50 latency of each contender as a multiple of the floor measured in the same run, one bar per
 * contender and one block per run, on a logarithmic axis (a frozen node costs Redisson hundreds of times the
 * floor), as a standalone SVG for docs/evidence/performance.md. Each bar runs from the floor's line (1×): right when slower than
 * the floor, left when faster; its label gives the ratio and the p50.
 */
final class LatencyChart {

    static final String TITLE = "p50 latency of lock + unlock, as a multiple of the protocol floor (left of 1× is faster, log scale)";

    static final String AXIS = "p50 latency ÷ the floor's p50 in the same run (×, log scale)";

    static final int WIDTH = 960;

    /** Contenders of this project, drawn in one colour; the peers in another. */
    private static final Set<String> OURS = Set.of("redlock", "fenced", "observed", "read", "write", "annotated", "annotatedKotlin",
            "kotlinCoroutine");

    private final BarBlocks bars = new BarBlocks(1);

    private final String subtitle;

    private double maxRatio = 1;

    LatencyChart(String subtitle) {
        this.subtitle = subtitle;
    }

    /**
     * Adds a bar; the bars of one run (group) are drawn together, in the order added.
     * @param group the run, e.g. {@code LockUnlock uncontended, 1 thread(s)}
     * @param method the contender
     * @param p50Micros its p50 latency
     * @param ratio its p50 divided by the floor's
     */
    void add(String group, String method, double p50Micros, double ratio) {
        if (Double.isFinite(ratio) && ratio > 0) {
            Color colour = method.equals("floor") ? Charts.FLOOR : OURS.contains(method) ? Charts.OURS : Charts.REDISSON;
            this.bars.add(group, method, ratio, colour, format(ratio) + "× (" + format(p50Micros) + " µs)");
            this.maxRatio = Math.max(this.maxRatio, ratio);
        }
    }

    JFreeChart chart() {
        LegendItemCollection legend = new LegendItemCollection();
        Rectangle2D square = new Rectangle2D.Double(-5, -5, 10, 10);
        legend.add(new LegendItem("this starter", null, null, null, square, Charts.OURS));
        legend.add(new LegendItem("Redisson", null, null, null, square, Charts.REDISSON));
        legend.add(new LegendItem("floor: the protocol's commands on raw Lettuce (1×)", null, null, null, new Line2D.Double(-6, 0, 6, 0),
                new BasicStroke(2f), Color.DARK_GRAY));
        // From 0.5× to a power of ten, which toSvg() raises until the labels fit.
        RatioAxis axis = new RatioAxis(0.5, Math.pow(10, Math.ceil(Math.log10(this.maxRatio) + 0.15)));
        JFreeChart chart = this.bars.chart(TITLE, this.subtitle, legend, axis);
        CategoryPlot plot = (CategoryPlot) chart.getPlot();
        plot.setRangeMinorGridlinesVisible(true);
        plot.addRangeMarker(new ValueMarker(1, Color.DARK_GRAY, new BasicStroke(1.5f)));
        return chart;
    }

    String toSvg() {
        return this.bars.svg(chart(), WIDTH, (upper) -> upper * 10);
    }

    /**
     * The ratio axis: logarithmic, a labelled tick at each power of ten and at the lower bound, gridlines at 2 to 9
     * times each power of ten.
     */
    private static final class RatioAxis extends LogAxis {

        RatioAxis(double lower, double upper) {
            super(AXIS);
            setRange(lower, upper);
            DecimalFormat format = new DecimalFormat("#,##0.#×", DecimalFormatSymbols.getInstance(Locale.ROOT));
            setTickUnit(new NumberTickUnit(1, format, 9)); // a decade, in nine steps
            setNumberFormatOverride(format);
        }

        @Override
        @SuppressWarnings({ "rawtypes", "unchecked" })
        public List refreshTicks(Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
            List<Tick> ticks = new ArrayList<>(super.refreshTicks(g2, state, dataArea, edge));
            double lower = getLowerBound();
            if (ticks.stream().map(ValueTick.class::cast).noneMatch((tick) -> tick.getTickType() == TickType.MAJOR && tick.getValue() == lower)) {
                ticks.add(new LogTick(TickType.MAJOR, lower, createTickLabel(lower), TextAnchor.TOP_CENTER));
            }
            return ticks;
        }

    }

    private static String format(double value) {
        if (value >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, (value >= 10) ? "%.1f" : "%.2f", value);
    }

}
