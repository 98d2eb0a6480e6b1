package io.github.redlock.benchmarks;

import java.awt.Color;
import java.awt.Font;
import java.awt.Rectangle;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

import org.jfree.chart.JFreeChart;
import org.jfree.chart.StandardChartTheme;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.svg.SVGGraphics2D;

/**
 * What the charts of docs/evidence/performance.md share: their look (a JFreeChart theme: white, sans-serif, flat bars) and the standalone
 * SVG document JFreeSVG writes of a chart. Drawing needs no display ({@code java.awt.headless}, which
 * {@link RunBenchmarks} sets).
 */
final class Charts {

    /** This project's contenders. */
    static final Color OURS = new Color(0x2e7d32);

    /** Redisson's contenders. */
    static final Color REDISSON = new Color(0xc62828);

    /** The protocol floor. */
    static final Color FLOOR = new Color(0x9e9e9e);

    static final Color TEXT = new Color(0x333333);

    private Charts() {
    }

    /** Gives the chart the docs' look; call it before setting the colours and fonts of single elements. */
    static void applyTheme(JFreeChart chart) {
        StandardChartTheme theme = new StandardChartTheme("redlock");
        theme.setExtraLargeFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        theme.setLargeFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        theme.setRegularFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        theme.setSmallFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        theme.setTitlePaint(Color.BLACK);
        theme.setSubtitlePaint(new Color(0x555555));
        theme.setLegendItemPaint(TEXT);
        theme.setAxisLabelPaint(TEXT);
        theme.setTickLabelPaint(TEXT);
        theme.setItemLabelPaint(TEXT);
        theme.setChartBackgroundPaint(Color.WHITE);
        theme.setLegendBackgroundPaint(Color.WHITE);
        theme.setPlotBackgroundPaint(Color.WHITE);
        theme.setPlotOutlinePaint(Color.WHITE);
        theme.setRangeGridlinePaint(new Color(0xdddddd));
        theme.setDomainGridlinePaint(new Color(0xdddddd));
        theme.setBarPainter(new StandardBarPainter());
        theme.setShadowVisible(false);
        theme.apply(chart);
    }

    /**
     * The chart drawn at the given size as a standalone SVG document. The same chart gives the same text: the
     * document's ids are fixed, not JFreeSVG's default (the time at which it was drawn), and coordinates are written
     * to a tenth of a pixel.
     */
    static String svg(JFreeChart chart, int width, int height) {
        SVGGraphics2D g2 = new SVGGraphics2D(width, height);
        g2.setDefsKeyPrefix("chart-");
        DecimalFormat tenths = new DecimalFormat("0.#", DecimalFormatSymbols.getInstance(Locale.ROOT));
        g2.setGeomDoubleConverter(tenths::format);
        g2.setTransformDoubleConverter(tenths::format);
        chart.draw(g2, new Rectangle(width, height));
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + g2.getSVGElement() + "\n";
    }

}
