package io.github.redlock.chaos;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.redlock.chaos.History.Fault;
import io.github.redlock.chaos.History.Operation;

/**
 * Draws a run as an SVG picture: grants and refusals per second over the run's seconds, under a translucent band
 * for each fault window (one colour per {@link FaultKind}, with a legend of the kinds present). A dip in grants
 * that outlasts its band is the picture of lost liveness. Plain SVG text, JDK only.
 */
final class Timeline {

    static final int WIDTH = 1000;

    static final int HEIGHT = 340;

    private static final int LEFT = 60;

    private static final int RIGHT = WIDTH - 20;

    private static final int TOP = 40;

    private static final int BOTTOM = 240;

    private static final String[] COLOURS = { "#d62728", "#8c564b", "#2ca02c", "#9467bd", "#e377c2", "#17becf", "#bcbd22",
            "#7f7f7f", "#000000" };

    private final long runStart;

    private final double seconds;

    private final StringBuilder svg = new StringBuilder();

    private Timeline(long runStart, long runEnd) {
        this.runStart = runStart;
        this.seconds = Math.max(1.0, (runEnd - runStart) / 1e9);
    }

    /**
     * The picture of a run between its start and end ({@code System.nanoTime()} values) with the given title.
     * Grants are counted at the moment they returned, refusals when they gave up; the buckets are one second, or
     * wider for long runs (the rate stays per second).
     */
    static String svg(String title, long runStartNanos, long runEndNanos, List<Operation> operations, List<Fault> faults) {
        Timeline timeline = new Timeline(runStartNanos, runEndNanos);
        int bucketSeconds = (int) Math.max(1, Math.ceil(timeline.seconds / 500));
        int buckets = (int) Math.ceil(timeline.seconds / bucketSeconds);
        double[] grants = new double[buckets];
        double[] refusals = new double[buckets];
        for (Operation op : operations) {
            int bucket = (int) ((op.endNanos() - runStartNanos) / 1e9 / bucketSeconds);
            if (bucket >= 0 && bucket < buckets && op.outcome() != History.Outcome.ERROR) {
                (op.granted() ? grants : refusals)[bucket] += 1.0 / bucketSeconds;
            }
        }
        double top = niceStep(Math.max(1, max(grants, refusals)) / 4) * 4;
        timeline.svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                    + "font-family=\"sans-serif\" font-size=\"11\">\n", WIDTH, HEIGHT, WIDTH, HEIGHT))
            .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
            .append("<text x=\"").append(LEFT).append("\" y=\"22\" font-size=\"14\">").append(escape(title)).append("</text>\n");
        Set<FaultKind> present = EnumSet.noneOf(FaultKind.class);
        for (Fault fault : faults) {
            timeline.fault(fault);
            present.add(fault.kind());
        }
        timeline.axes(top);
        timeline.series(grants, bucketSeconds, top, "#1f77b4", "grants");
        timeline.series(refusals, bucketSeconds, top, "#ff7f0e", "refusals");
        timeline.legend(present);
        return timeline.svg.append("</svg>\n").toString();
    }

    private void fault(Fault fault) {
        double x1 = Math.max(LEFT, x((fault.startNanos() - this.runStart) / 1e9));
        double x2 = Math.min(RIGHT, x((fault.endNanos() - this.runStart) / 1e9));
        double width = Math.max(2, x2 - x1);
        this.svg.append(String.format(Locale.ROOT, "<rect class=\"fault\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                + "fill-opacity=\"0.25\"><title>%s</title></rect>\n", Math.min(x1, RIGHT - width), TOP, width, BOTTOM - TOP,
                colour(fault.kind()), escape(fault.kind() + " " + fault.detail())));
    }

    private void axes(double top) {
        this.svg.append(line(LEFT, BOTTOM, RIGHT, BOTTOM)).append(line(LEFT, TOP, LEFT, BOTTOM));
        double yStep = top / 4;
        for (int i = 0; i <= 4; i++) {
            double y = y(i * yStep, top);
            this.svg.append(line(LEFT - 4, y, LEFT, y)).append(text(LEFT - 7, y + 4, "end", label(i * yStep)));
        }
        this.svg.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">"
                + "per second</text>\n", (TOP + BOTTOM) / 2, (TOP + BOTTOM) / 2));
        double xStep = niceStep(this.seconds / 8);
        for (double s = 0; s <= this.seconds + 1e-9; s += xStep) {
            this.svg.append(line(x(s), BOTTOM, x(s), BOTTOM + 4)).append(text(x(s), BOTTOM + 16, "middle", label(s)));
        }
        this.svg.append(text((LEFT + RIGHT) / 2.0, BOTTOM + 32, "middle", "seconds since the run began"));
    }

    private void series(double[] perSecond, int bucketSeconds, double top, String colour, String name) {
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < perSecond.length; i++) {
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x((i + 0.5) * bucketSeconds), y(perSecond[i], top)));
        }
        this.svg.append("<polyline class=\"").append(name).append("\" fill=\"none\" stroke=\"").append(colour)
            .append("\" stroke-width=\"1.5\" points=\"").append(points.toString().trim()).append("\"/>\n");
    }

    private void legend(Set<FaultKind> present) {
        double x = LEFT;
        double y = BOTTOM + 46;
        this.svg.append(swatch(x, y, "#1f77b4")).append(text(x + 16, y + 10, "start", "grants"));
        this.svg.append(swatch(x + 70, y, "#ff7f0e")).append(text(x + 86, y + 10, "start", "refusals"));
        x += 150;
        for (FaultKind kind : present) {
            double width = 24 + kind.name().length() * 7;
            if (x + width > RIGHT) {
                x = LEFT + 150;
                y += 18;
            }
            this.svg.append(swatch(x, y, colour(kind))).append(text(x + 16, y + 10, "start", kind.name()));
            x += width;
        }
    }

    private double x(double second) {
        return LEFT + (RIGHT - LEFT) * second / this.seconds;
    }

    private static double y(double value, double top) {
        return BOTTOM - (BOTTOM - TOP) * value / top;
    }

    private static String colour(FaultKind kind) {
        return COLOURS[kind.ordinal() % COLOURS.length];
    }

    /** The step among 1, 2 and 5 times a power of ten closest above the given raw step. */
    static double niceStep(double raw) {
        double power = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
        double fraction = raw / power;
        return power * ((fraction <= 1) ? 1 : (fraction <= 2) ? 2 : (fraction <= 5) ? 5 : 10);
    }

    private static double max(double[] a, double[] b) {
        double max = 0;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.max(a[i], b[i]));
        }
        return max;
    }

    private static String label(double value) {
        return (value == Math.rint(value)) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String line(double x1, double y1, double x2, double y2) {
        return String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x1, y1, x2, y2);
    }

    private static String text(double x, double y, String anchor, String text) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", x, y, anchor, escape(text));
    }

    private static String swatch(double x, double y, String colour) {
        return String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" fill-opacity=\"0.6\"/>\n",
                x, y, colour);
    }

    /** The text with XML's special characters escaped, and characters XML cannot hold dropped. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&apos;");
                default -> {
                    if (c >= 0x20 || c == '\t' || c == '\n') {
                        escaped.append(c);
                    }
                }
            }
        }
        return escaped.toString();
    }

}
