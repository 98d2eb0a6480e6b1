package io.github.redlock.benchmarks;

import java.util.Locale;

/** What the README's charts share: the opening of a standalone SVG on a white page, and text escaping. */
final class Svg {

    private Svg() {
    }

    /** The {@code <svg>} element's opening and a white background of that size. */
    static String open(int width, int height) {
        return String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">%n", width, height)
                + String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height);
    }

    /** Text escaped for an SVG text node. */
    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

}
