package io.github.redlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Draws the p50 latency of each contender as a multiple of the floor measured in the same run, one bar per
 * contender and one block per run, on a logarithmic axis (a frozen node costs Redisson hundreds of times the
 * floor), as a standalone SVG for the README.
 */
final class LatencyChart {

    /** Contenders of this project, drawn in one colour; the peers in another. */
    private static final Set<String> OURS = Set.of("redlock", "read", "write", "annotated", "annotatedKotlin", "kotlinCoroutine");

    private static final int WIDTH = 960;

    private static final int LABEL_WIDTH = 330;

    private static final int BAR_HEIGHT = 14;

    private static final int ROW_HEIGHT = 18;

    private static final int TOP = 80;

    private final List<Bar> bars = new ArrayList<>();

    private final String subtitle;

    LatencyChart(String subtitle) {
        this.subtitle = subtitle;
    }

    /**
     * Adds a bar; bars of one run (group) must be added together.
     * @param group the run, e.g. {@code LockUnlock uncontended, 1 thread(s)}
     * @param method the contender
     * @param p50Micros its p50 latency
     * @param ratio its p50 divided by the floor's
     */
    void add(String group, String method, double p50Micros, double ratio) {
        if (Double.isFinite(ratio) && ratio > 0) {
            this.bars.add(new Bar(group, method, p50Micros, ratio));
        }
    }

    String toSvg() {
        double maxRatio = this.bars.stream().mapToDouble(Bar::ratio).max().orElse(1);
        double minLog = Math.log10(0.5);
        double maxLog = Math.ceil(Math.log10(Math.max(2, maxRatio)) + 0.15);
        int plotLeft = LABEL_WIDTH;
        int plotWidth = WIDTH - LABEL_WIDTH - 150;
        List<String> groups = this.bars.stream().map(Bar::group).distinct().toList();
        int height = TOP + this.bars.size() * ROW_HEIGHT + groups.size() * 26 + 40;
        StringBuilder svg = new StringBuilder();
        svg.append(Svg.open(WIDTH, height));
        svg.append("<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">p50 latency of lock + unlock, as a multiple "
                + "of the protocol floor (left of 1× is faster, log scale)</text>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"42\" fill=\"#555\">%s</text>%n", Svg.escape(this.subtitle)));
        String[][] legend = { { "#2e7d32", "this starter" }, { "#c62828", "Redisson" }, { "#9e9e9e", "floor: the protocol's commands on raw Lettuce (1×)" } };
        int legendX = 10;
        for (String[] entry : legend) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"50\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"59\" fill=\"#333\">%s</text>%n", legendX, entry[0], legendX + 14, Svg.escape(entry[1])));
            legendX += 24 + entry[1].length() * 7;
        }
        int axisBottom = height - 30;
        boolean wide = maxLog - minLog > 2.5; // then only powers of ten are labelled
        for (double tick : ticks(minLog, maxLog)) {
            double x = plotLeft + (Math.log10(tick) - minLog) / (maxLog - minLog) * plotWidth;
            boolean floor = tick == 1;
            boolean labelled = !wide || Math.abs(Math.log10(tick) - Math.rint(Math.log10(tick))) < 1e-9 || tick == 0.5;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"%s\"/>%n", x, TOP - 8, x, axisBottom, floor ? "#222" : "#ddd", floor ? "1.5" : "1"));
            if (!labelled) {
                continue;
            }
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>%n", x,
                    axisBottom + 16, ((tick < 1) ? String.format(Locale.ROOT, "%.1f", tick) : String.format(Locale.ROOT, "%,.0f", tick)) + "×"));
        }
        double floorX = plotLeft + (0 - minLog) / (maxLog - minLog) * plotWidth;
        int y = TOP;
        for (String group : groups) {
            svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>%n", y + 10,
                    Svg.escape(group)));
            y += 22;
            for (Bar bar : this.bars) {
                if (!bar.group().equals(group)) {
                    continue;
                }
                double end = plotLeft + (Math.log10(bar.ratio()) - minLog) / (maxLog - minLog) * plotWidth;
                String colour = bar.method().equals("floor") ? "#9e9e9e" : OURS.contains(bar.method()) ? "#2e7d32" : "#c62828";
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                        plotLeft - 8, y + BAR_HEIGHT - 3, Svg.escape(bar.method())));
                if (!bar.method().equals("floor")) { // the floor is the 1× line itself
                    // From the floor line to the ratio: right when slower than the floor, left when faster.
                    svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                            Math.min(end, floorX), y, Math.max(1.5, Math.abs(end - floorX)), BAR_HEIGHT, colour));
                }
                svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#333\">%s× (%s µs)</text>%n",
                        Math.max(end, floorX) + 6, y + BAR_HEIGHT - 3, format(bar.ratio()), format(bar.p50Micros())));
                y += ROW_HEIGHT;
            }
            y += 4;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static List<Double> ticks(double minLog, double maxLog) {
        List<Double> ticks = new ArrayList<>();
        for (int power = (int) Math.floor(minLog); power <= maxLog; power++) {
            for (double mantissa : new double[] { 1, 2, 5 }) {
                double tick = mantissa * Math.pow(10, power);
                if (Math.log10(tick) >= minLog - 1e-9 && Math.log10(tick) <= maxLog + 1e-9) {
                    ticks.add(tick);
                }
            }
        }
        return ticks;
    }

    private static String format(double value) {
        if (value >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, (value >= 10) ? "%.1f" : "%.2f", value);
    }

    private record Bar(String group, String method, double p50Micros, double ratio) {
    }

}
