package io.github.redlock.chaos;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Rectangle;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.redlock.chaos.History.Fault;
import io.github.redlock.chaos.History.Operation;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.StandardChartTheme;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYItemRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.ui.HorizontalAlignment;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * Draws a run as an SVG picture with JFreeChart: grants and refusals per second over the run's seconds, under a
 * translucent band for each fault window (one colour per {@link FaultKind}, with a legend of the kinds present). A
 * dip in grants that outlasts its band is the picture of lost liveness; each band's title, in the SVG, names the
 * fault ({@link TimelineRenderer}). Drawing needs no display ({@code java.awt.headless}, which {@link ChaosRun},
 * {@link HistoryChecker} and the test runs set).
 */
final class Timeline {

    static final int WIDTH = 1000;

    static final int HEIGHT = 380;

    static final String TIME_AXIS = "seconds since the run began (s)";

    static final String RATE_AXIS = "operations per second (1/s)";

    static final Color GRANTS = new Color(0x1f77b4);

    static final Color REFUSALS = new Color(0xff7f0e);

    /** A colour for each {@link FaultKind}, by ordinal: every kind has its own. */
    private static final Color[] COLOURS = { new Color(0xd62728), new Color(0x8c564b), new Color(0x2ca02c), new Color(0x9467bd),
            new Color(0xe377c2), new Color(0x17becf), new Color(0xbcbd22), new Color(0x7f7f7f), new Color(0x000000),
            new Color(0x393b79), new Color(0x8c6d31), new Color(0x637939), new Color(0xad494a), new Color(0xe7ba52),
            new Color(0x17803a), new Color(0x6b6ecf), new Color(0xce6dbd), new Color(0x9c9ede) };

    private Timeline() {
    }

    /**
     * The picture of a run between its start and end ({@code System.nanoTime()} values) with the given title, as a
     * standalone SVG document.
     */
    static String svg(String title, long runStartNanos, long runEndNanos, List<Operation> operations, List<Fault> faults) {
        SVGGraphics2D g2 = new SVGGraphics2D(WIDTH, HEIGHT);
        g2.setDefsKeyPrefix("timeline-"); // not JFreeSVG's default, the time of drawing: the same run, the same text
        DecimalFormat tenths = new DecimalFormat("0.#", DecimalFormatSymbols.getInstance(Locale.ROOT));
        g2.setGeomDoubleConverter(tenths::format);
        g2.setTransformDoubleConverter(tenths::format);
        // JFreeChart's default draws a turned label (the rate axis') as glyph outlines; this writes it as text.
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        chart(title, runStartNanos, runEndNanos, operations, faults).draw(g2, new Rectangle(WIDTH, HEIGHT));
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + g2.getSVGElement() + "\n";
    }

    /**
     * The chart of a run. Grants are counted at the moment they returned, refusals when they gave up; the buckets are
     * one second, or wider for long runs (the rate stays per second), each drawn at its middle.
     */
    static JFreeChart chart(String title, long runStartNanos, long runEndNanos, List<Operation> operations, List<Fault> faults) {
        double seconds = Math.max(1.0, (runEndNanos - runStartNanos) / 1e9);
        int bucketSeconds = (int) Math.max(1, Math.ceil(seconds / 500));
        int buckets = (int) Math.ceil(seconds / bucketSeconds);
        double[] grants = new double[buckets];
        double[] refusals = new double[buckets];
        for (Operation op : operations) {
            int bucket = (int) ((op.endNanos() - runStartNanos) / 1e9 / bucketSeconds);
            if (bucket >= 0 && bucket < buckets && op.outcome() != History.Outcome.ERROR) {
                (op.granted() ? grants : refusals)[bucket] += 1.0 / bucketSeconds;
            }
        }
        XYSeriesCollection dataset = new XYSeriesCollection();
        dataset.addSeries(series("grants", grants, bucketSeconds));
        dataset.addSeries(series("refusals", refusals, bucketSeconds));
        NumberAxis time = new NumberAxis(TIME_AXIS);
        time.setRange(0, seconds);
        time.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        NumberAxis rate = new NumberAxis(RATE_AXIS);
        rate.setRange(0, Math.max(1, Math.max(max(grants), max(refusals))) * 1.05);
        rate.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        XYPlot plot = new XYPlot(dataset, time, rate, new TimelineRenderer());
        Set<FaultKind> present = EnumSet.noneOf(FaultKind.class);
        for (Fault fault : faults) {
            plot.addDomainMarker(new TimelineRenderer.FaultBand((fault.startNanos() - runStartNanos) / 1e9,
                    (fault.endNanos() - runStartNanos) / 1e9, colour(fault.kind()), fault.kind() + " " + fault.detail()), Layer.BACKGROUND);
            present.add(fault.kind());
        }
        plot.setFixedLegendItems(legend(present));
        JFreeChart chart = new JFreeChart(title, plot);
        style(chart, plot);
        return chart;
    }

    /** The look: white, sans-serif, the legend under the plot, the series in their colours. */
    private static void style(JFreeChart chart, XYPlot plot) {
        theme().apply(chart);
        chart.getTitle().setHorizontalAlignment(HorizontalAlignment.LEFT);
        chart.getLegend().setFrame(BlockBorder.NONE);
        chart.getLegend().setPosition(RectangleEdge.BOTTOM);
        chart.setPadding(new RectangleInsets(6, 10, 6, 20));
        plot.setDomainGridlinesVisible(false);
        plot.setRangeGridlineStroke(new BasicStroke(1f));
        plot.setOutlinePaint(Color.BLACK);
        XYItemRenderer renderer = plot.getRenderer();
        renderer.setSeriesPaint(0, GRANTS);
        renderer.setSeriesPaint(1, REFUSALS);
        renderer.setSeriesStroke(0, new BasicStroke(1.5f));
        renderer.setSeriesStroke(1, new BasicStroke(1.5f));
    }

    private static XYSeries series(String name, double[] perSecond, int bucketSeconds) {
        XYSeries series = new XYSeries(name, false, true);
        for (int i = 0; i < perSecond.length; i++) {
            series.add((i + 0.5) * bucketSeconds, perSecond[i]);
        }
        return series;
    }

    private static LegendItemCollection legend(Set<FaultKind> present) {
        LegendItemCollection legend = new LegendItemCollection();
        Line2D line = new Line2D.Double(-7, 0, 7, 0);
        legend.add(new LegendItem("grants", null, null, null, line, new BasicStroke(2f), GRANTS));
        legend.add(new LegendItem("refusals", null, null, null, line, new BasicStroke(2f), REFUSALS));
        Rectangle2D square = new Rectangle2D.Double(-6, -6, 12, 12);
        for (FaultKind kind : present) {
            Color colour = colour(kind);
            legend.add(new LegendItem(kind.name(), null, null, null, square, new Color(colour.getRed(), colour.getGreen(),
                    colour.getBlue(), 153)));
        }
        return legend;
    }

    private static StandardChartTheme theme() {
        StandardChartTheme theme = new StandardChartTheme("timeline");
        theme.setExtraLargeFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        theme.setLargeFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        theme.setRegularFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        theme.setSmallFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        theme.setTitlePaint(Color.BLACK);
        theme.setAxisLabelPaint(Color.BLACK);
        theme.setTickLabelPaint(Color.BLACK);
        theme.setLegendItemPaint(Color.BLACK);
        theme.setChartBackgroundPaint(Color.WHITE);
        theme.setLegendBackgroundPaint(Color.WHITE);
        theme.setPlotBackgroundPaint(Color.WHITE);
        theme.setRangeGridlinePaint(new Color(0xeeeeee));
        return theme;
    }

    /** The colour of a kind's bands; a kind added to {@link FaultKind} needs one here ({@code TimelineTests} checks). */
    static Color colour(FaultKind kind) {
        return COLOURS[kind.ordinal()];
    }

    private static double max(double[] values) {
        double max = 0;
        for (double value : values) {
            max = Math.max(max, value);
        }
        return max;
    }

}
