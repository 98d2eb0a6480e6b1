package io.github.redlock.benchmarks;

import java.awt.geom.Rectangle2D;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.NumberAxis;

/**
 * Draws the hot-key handoff ({@link HandoffBenchmark}): acquisitions per second of each contender, one block per
 * thread count, on a linear axis, each bar labelled with its ratio to Redisson's single-node {@code RLock} of the
 * same block, as a standalone SVG for docs/evidence/performance.md.
 */
final class HandoffChart {

    /** The contender the others are compared with. */
    static final String REFERENCE = "redissonSingle";

    /** The title; a number and its unit are joined by a no-break space, so that the title wraps between words. */
    static final String TITLE = "Hot-key handoff: acquisitions per second of one key (threads wait up to 5\u00a0s, hold 1\u00a0ms, "
            + "pause 10\u00a0ms; longer is better)";

    static final String AXIS = "acquisitions of the key per second (1/s)";

    static final int WIDTH = 960;

    private final List<Bar> bars = new ArrayList<>();

    private final String subtitle;

    HandoffChart(String subtitle) {
        this.subtitle = subtitle;
    }

    /**
     * Adds a bar; the bars of one thread count are drawn together, in the order added.
     * @param threads the thread count of the run
     * @param method the contender
     * @param perSecond its acquisitions per second
     */
    void add(int threads, String method, double perSecond) {
        if (Double.isFinite(perSecond) && perSecond > 0) {
            this.bars.add(new Bar(threads, method, perSecond));
        }
    }

    JFreeChart chart() {
        return chart(blocks());
    }

    String toSvg() {
        BarBlocks blocks = blocks();
        return blocks.svg(chart(blocks), WIDTH, (upper) -> upper * 1.1);
    }

    private BarBlocks blocks() {
        BarBlocks blocks = new BarBlocks(0);
        for (Bar bar : this.bars) {
            double reference = this.bars.stream().filter((other) -> other.threads() == bar.threads() && other.method().equals(REFERENCE))
                    .mapToDouble(Bar::perSecond).findFirst().orElse(Double.NaN);
            String ratio = Double.isNaN(reference) ? "" : String.format(Locale.ROOT, " (%.2f× RLock)", bar.perSecond() / reference);
            blocks.add(bar.threads() + " threads", bar.method(), bar.perSecond(), bar.method().equals("redlock") ? Charts.OURS : Charts.REDISSON,
                    String.format(Locale.ROOT, "%,.0f/s%s", bar.perSecond(), ratio));
        }
        return blocks;
    }

    private JFreeChart chart(BarBlocks blocks) {
        LegendItemCollection legend = new LegendItemCollection();
        Rectangle2D square = new Rectangle2D.Double(-5, -5, 10, 10);
        legend.add(new LegendItem("this starter (5 nodes)", null, null, null, square, Charts.OURS));
        legend.add(new LegendItem("Redisson (RLock: one node; RedissonRedLock: 5 nodes)", null, null, null, square, Charts.REDISSON));
        NumberAxis axis = new NumberAxis(AXIS);
        // toSvg() widens it until the labels fit.
        axis.setRange(0, this.bars.stream().mapToDouble(Bar::perSecond).max().orElse(1) * 1.1);
        axis.setNumberFormatOverride(new DecimalFormat("#,##0", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        return blocks.chart(TITLE, this.subtitle, legend, axis);
    }

    private record Bar(int threads, String method, double perSecond) {
    }

}
