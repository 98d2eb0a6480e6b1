package io.github.redlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws the hot-key handoff ({@link HandoffBenchmark}): acquisitions per second of each contender, one block per
 * thread count, on a linear axis, each bar labelled with its ratio to Redisson's single-node {@code RLock} of the
 * same block, as a standalone SVG for the README.
 */
final class HandoffChart {

    /** The contender the others are compared with. */
    static final String REFERENCE = "redissonSingle";

    private static final int WIDTH = 960;

    private static final int LABEL_WIDTH = 260;

    private static final int BAR_HEIGHT = 16;

    private static final int ROW_HEIGHT = 22;

    private static final int TOP = 80;

    private final List<Bar> bars = new ArrayList<>();

    private final String subtitle;

    HandoffChart(String subtitle) {
        this.subtitle = subtitle;
    }

    /**
     * Adds a bar; the bars of one thread count must be added together.
     * @param threads the thread count of the run
     * @param method the contender
     * @param perSecond its acquisitions per second
     */
    void add(int threads, String method, double perSecond) {
        if (Double.isFinite(perSecond) && perSecond > 0) {
            this.bars.add(new Bar(threads, method, perSecond));
        }
    }

    String toSvg() {
        double max = this.bars.stream().mapToDouble(Bar::perSecond).max().orElse(1) * 1.1;
        List<Integer> groups = this.bars.stream().map(Bar::threads).distinct().toList();
        int plotWidth = WIDTH - LABEL_WIDTH - 200;
        int height = TOP + this.bars.size() * ROW_HEIGHT + groups.size() * 26 + 20;
        StringBuilder svg = new StringBuilder();
        svg.append(Svg.open(WIDTH, height));
        svg.append("<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">Hot-key handoff: acquisitions per second of one "
                + "key (threads wait up to 5 s, hold 1 ms, pause 10 ms; longer is better)</text>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"42\" fill=\"#555\">%s</text>%n", Svg.escape(this.subtitle)));
        svg.append("<rect x=\"10\" y=\"50\" width=\"10\" height=\"10\" fill=\"#2e7d32\"/><text x=\"24\" y=\"59\" fill=\"#333\">"
                + "this starter (5 nodes)</text>\n<rect x=\"170\" y=\"50\" width=\"10\" height=\"10\" fill=\"#c62828\"/>"
                + "<text x=\"184\" y=\"59\" fill=\"#333\">Redisson (RLock: one node; RedissonRedLock: 5 nodes)</text>\n");
        int y = TOP;
        for (int threads : groups) {
            svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%d threads</text>%n", y + 10, threads));
            y += 22;
            double reference = this.bars.stream().filter((bar) -> bar.threads() == threads && bar.method().equals(REFERENCE))
                    .mapToDouble(Bar::perSecond).findFirst().orElse(Double.NaN);
            for (Bar bar : this.bars) {
                if (bar.threads() != threads) {
                    continue;
                }
                double width = bar.perSecond() / max * plotWidth;
                String colour = bar.method().equals("redlock") ? "#2e7d32" : "#c62828";
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", LABEL_WIDTH - 8,
                        y + BAR_HEIGHT - 4, Svg.escape(bar.method())));
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n", LABEL_WIDTH, y,
                        width, BAR_HEIGHT, colour));
                String ratio = Double.isNaN(reference) ? "" : String.format(Locale.ROOT, " (%.2f× RLock)", bar.perSecond() / reference);
                svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#333\">%,.0f/s%s</text>%n", LABEL_WIDTH + width + 6,
                        y + BAR_HEIGHT - 4, bar.perSecond(), ratio));
                y += ROW_HEIGHT;
            }
            y += 4;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private record Bar(int threads, String method, double perSecond) {
    }

}
