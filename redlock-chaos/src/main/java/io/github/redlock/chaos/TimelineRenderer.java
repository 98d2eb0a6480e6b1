package io.github.redlock.chaos;

import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.Shape;
import java.awt.geom.Rectangle2D;
import java.util.Map;

import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.Marker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGHints;

/**
 * Draws the {@link Timeline}'s series as lines without shapes, each as one path, and its fault bands at least
 * {@value #MIN_BAND_PIXELS} pixels wide. In an SVG, each series' path is in a group whose class is the series'
 * name, and each band in a group of class {@code fault} whose title (shown on hover) names the fault.
 */
final class TimelineRenderer extends XYLineAndShapeRenderer {

    /** The narrowest band, in pixels: a fault of no length (a clock jump) stays visible. */
    static final double MIN_BAND_PIXELS = 2;

    TimelineRenderer() {
        super(true, false);
        setDrawSeriesLineAsPath(true);
    }

    @Override
    protected void drawFirstPassShape(Graphics2D g2, int pass, int series, int item, Shape shape) {
        beginGroup(g2, Map.of("class", String.valueOf(getPlot().getDataset().getSeriesKey(series))));
        super.drawFirstPassShape(g2, pass, series, item, shape);
        endGroup(g2);
    }

    @Override
    public void drawDomainMarker(Graphics2D g2, XYPlot plot, ValueAxis axis, Marker marker, Rectangle2D dataArea) {
        if (!(marker instanceof FaultBand band)) {
            super.drawDomainMarker(g2, plot, axis, marker, dataArea);
            return;
        }
        double minWidth = MIN_BAND_PIXELS * axis.getRange().getLength() / dataArea.getWidth();
        double start = Math.max(band.getStartValue(), axis.getLowerBound());
        double end = Math.min(band.getEndValue(), axis.getUpperBound());
        if (end - start < minWidth) { // widened to the right, or to the left at the run's end
            start = Math.max(axis.getLowerBound(), Math.min(start, axis.getUpperBound() - minWidth));
            end = start + minWidth;
        }
        IntervalMarker drawn = new IntervalMarker(start, end, band.getPaint());
        drawn.setAlpha(band.getAlpha());
        beginGroup(g2, Map.of("class", "fault"));
        if (g2 instanceof SVGGraphics2D) {
            g2.setRenderingHint(SVGHints.KEY_ELEMENT_TITLE, band.detail);
        }
        super.drawDomainMarker(g2, plot, axis, drawn, dataArea);
        endGroup(g2);
    }

    private static void beginGroup(Graphics2D g2, Map<String, String> attributes) {
        if (g2 instanceof SVGGraphics2D) {
            g2.setRenderingHint(SVGHints.KEY_BEGIN_GROUP, attributes);
        }
    }

    private static void endGroup(Graphics2D g2) {
        if (g2 instanceof SVGGraphics2D) {
            g2.setRenderingHint(SVGHints.KEY_END_GROUP, Boolean.TRUE);
        }
    }

    /** A fault's window on the time axis, in seconds since the run began, a quarter opaque. */
    static final class FaultBand extends IntervalMarker {

        private final String detail;

        /**
         * @param detail what the fault was, e.g. {@code NODE_RESTART node 1}
         */
        FaultBand(double startSeconds, double endSeconds, Paint paint, String detail) {
            super(startSeconds, endSeconds, paint);
            setAlpha(0.25f);
            this.detail = detail;
        }

    }

}
