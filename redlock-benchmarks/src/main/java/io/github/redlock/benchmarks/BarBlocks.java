package io.github.redlock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Paint;
import java.awt.Rectangle;
import java.awt.geom.Rectangle2D;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;

import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.AxisLocation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPosition;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.CategoryLabelWidthType;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.text.TextBlockAnchor;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.title.Title;
import org.jfree.chart.ui.HorizontalAlignment;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.svg.SVGGraphics2D;

/**
 * Horizontal bars in blocks, one block per run, as one JFreeChart category plot: {@link LatencyChart} and
 * {@link HandoffChart}. Each block opens with its name in bold; each bar has its own colour and its own label,
 * drawn past its end. Bars run from a base (0, or 1 on the latency chart's ratio axis), so a bar below the base
 * runs to the left of it.
 */
final class BarBlocks {

    /** The height of one row, a bar or a block's name, in pixels. */
    private static final int ROW_HEIGHT = 20;

    /** The height of what is not a row: titles, legend, axis. */
    private static final int FRAME_HEIGHT = 150;

    private static final String SERIES = "bars";

    /** How many times the value axis may be widened to make room for the labels. */
    private static final int MAX_WIDENINGS = 30;

    private final Map<String, List<Bar>> blocks = new LinkedHashMap<>();

    private final double base;

    /** Bars that run from the given base value. */
    BarBlocks(double base) {
        this.base = base;
    }

    /** Adds a bar to the end of its block; the blocks keep the order in which they first appear. */
    void add(String block, String name, double value, Color colour, String label) {
        this.blocks.computeIfAbsent(block, (key) -> new ArrayList<>()).add(new Bar(block, name, value, colour, label));
    }

    /** The height of a chart of these bars, in pixels. */
    int height() {
        return FRAME_HEIGHT + ROW_HEIGHT * (this.blocks.size() + this.blocks.values().stream().mapToInt(List::size).sum());
    }

    /**
     * The chart: its title (wrapped to the picture's width), the subtitle, the legend's items, then the bars against
     * the given value axis.
     */
    JFreeChart chart(String title, String subtitle, LegendItemCollection legend, ValueAxis valueAxis) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        Map<Row, Bar> bars = new LinkedHashMap<>();
        for (Map.Entry<String, List<Bar>> block : this.blocks.entrySet()) {
            dataset.addValue(null, SERIES, new Row(block.getKey(), null));
            for (Bar bar : block.getValue()) {
                Row row = new Row(bar.block(), bar.name());
                dataset.addValue(bar.value(), SERIES, row);
                bars.put(row, bar);
            }
        }
        CategoryPlot plot = new CategoryPlot(dataset, new CategoryAxis(), valueAxis, renderer(bars, this.base));
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.setRangeAxisLocation(AxisLocation.BOTTOM_OR_LEFT);
        plot.setFixedLegendItems(legend);
        JFreeChart chart = new JFreeChart(title, plot);
        chart.removeLegend();
        chart.addSubtitle(new TextTitle(subtitle));
        LegendTitle legendTitle = new LegendTitle(plot);
        legendTitle.setPosition(RectangleEdge.TOP);
        legendTitle.setFrame(BlockBorder.NONE);
        chart.addSubtitle(legendTitle);
        Charts.applyTheme(chart);
        chart.getTitle().setTextAlignment(HorizontalAlignment.LEFT);
        for (Title text : List.of(chart.getTitle(), chart.getSubtitle(0), legendTitle)) {
            text.setHorizontalAlignment(HorizontalAlignment.LEFT);
        }
        // Room on the right for the last tick's label, centred on the plot's edge.
        chart.setPadding(new RectangleInsets(8, 10, 8, 30));
        plot.setRangeGridlineStroke(new BasicStroke(1f));
        plot.setRangeMinorGridlineStroke(new BasicStroke(1f));
        plot.setRangeMinorGridlinePaint(new Color(0xf0f0f0));
        plot.setDomainGridlinesVisible(false);
        styleRows(plot.getDomainAxis());
        return chart;
    }

    /** The rows' axis: names flush left, the blocks' in bold, bars a fifth apart, no axis line. */
    private void styleRows(CategoryAxis rows) {
        rows.setCategoryMargin(0.2);
        rows.setLowerMargin(0.005);
        rows.setUpperMargin(0.005);
        rows.setTickMarksVisible(false);
        rows.setAxisLineVisible(false);
        rows.setCategoryLabelPositions(CategoryLabelPositions.replaceLeftPosition(CategoryLabelPositions.STANDARD,
                new CategoryLabelPosition(RectangleAnchor.LEFT, TextBlockAnchor.CENTER_LEFT, CategoryLabelWidthType.RANGE, 1f)));
        Font bold = rows.getTickLabelFont().deriveFont(Font.BOLD);
        for (String block : this.blocks.keySet()) {
            rows.setTickLabelFont(new Row(block, null), bold);
        }
    }

    /**
     * The chart of these bars as a standalone SVG document, {@link #height()} high, its value axis first widened
     * step by step (each step the given function of the upper bound) until every bar's label ends inside the plot.
     */
    String svg(JFreeChart chart, int width, DoubleUnaryOperator widen) {
        ValueAxis axis = chart.getCategoryPlot().getRangeAxis();
        for (int i = 0; i < MAX_WIDENINGS && !labelsFit(chart, width); i++) {
            axis.setUpperBound(widen.applyAsDouble(axis.getUpperBound()));
        }
        return Charts.svg(chart, width, height());
    }

    /** Whether every label ends inside the plot, when the chart is drawn at this width. */
    private boolean labelsFit(JFreeChart chart, int width) {
        SVGGraphics2D g2 = new SVGGraphics2D(width, height());
        ChartRenderingInfo info = new ChartRenderingInfo();
        chart.draw(g2, new Rectangle(width, height()), info);
        Rectangle2D plot = info.getPlotInfo().getDataArea();
        CategoryPlot categories = chart.getCategoryPlot();
        FontMetrics metrics = g2.getFontMetrics(categories.getRenderer().getDefaultItemLabelFont());
        double gap = ((BarRenderer) categories.getRenderer()).getItemLabelInsets().getLeft() + 2;
        return this.blocks.values().stream().flatMap(List::stream).allMatch((bar) -> categories.getRangeAxis()
            .valueToJava2D(Math.max(bar.value(), this.base), plot, categories.getRangeAxisEdge()) + gap
                + metrics.stringWidth(bar.label()) <= plot.getMaxX());
    }

    private static BarRenderer renderer(Map<Row, Bar> bars, double base) {
        BarRenderer renderer = new BarRenderer() {

            @Override
            public Paint getItemPaint(int series, int column) {
                return bars.get((Row) getPlot().getDataset().getColumnKey(column)).colour();
            }

        };
        renderer.setBase(base);
        renderer.setMinimumBarLength(1.5);
        renderer.setDrawBarOutline(false);
        renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator() {

            @Override
            public String generateLabel(CategoryDataset dataset, int series, int column) {
                return bars.get((Row) dataset.getColumnKey(column)).label();
            }

        });
        renderer.setDefaultItemLabelsVisible(true);
        renderer.setDefaultPositiveItemLabelPosition(new ItemLabelPosition(ItemLabelAnchor.OUTSIDE3, TextAnchor.CENTER_LEFT));
        renderer.setItemLabelInsets(new RectangleInsets(4, 4, 4, 4));
        return renderer;
    }

    /** A row of the plot: a block's name (when {@code name} is null) or one of its bars, shown by its name. */
    private record Row(String block, String name) implements Comparable<Row> {

        private static final Comparator<Row> ORDER = Comparator.comparing(Row::block)
            .thenComparing(Row::name, Comparator.nullsFirst(Comparator.naturalOrder()));

        @Override
        public int compareTo(Row other) {
            return ORDER.compare(this, other);
        }

        @Override
        public String toString() {
            return (this.name != null) ? this.name : this.block;
        }

    }

    private record Bar(String block, String name, double value, Color colour, String label) {
    }

}
