package io.github.redlock.chaos;

import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * A chart's SVG document read back by the tests (with the JDK's XML parser, so it must be well-formed): its texts,
 * where each one ends in the same font as the chart measured it with, its filled rectangles and its lines.
 */
final class SvgPicture {

    private static final Pattern FONT_SIZE = Pattern.compile("font-size: ?([0-9.]+)px");

    private static final Pattern FILL = Pattern.compile("(?<![-\\w])fill: ?rgb\\((\\d+), ?(\\d+), ?(\\d+)\\)");

    private static final Pattern STROKE = Pattern.compile("(?<![-\\w])stroke: ?rgb\\((\\d+), ?(\\d+), ?(\\d+)\\)");

    private final Document document;

    private SvgPicture(Document document) {
        this.document = document;
    }

    static SvgPicture parse(String svg) throws Exception {
        return new SvgPicture(DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8))));
    }

    double width() {
        return Double.parseDouble(this.document.getDocumentElement().getAttribute("width"));
    }

    List<Text> texts() {
        return elements("text").stream().map(this::text).toList();
    }

    List<String> strings() {
        return texts().stream().map(Text::content).toList();
    }

    /** The rectangles filled with the given colour. */
    List<Rectangle2D> rectangles(Color fill) {
        return elements("rect").stream().filter((rect) -> fill.equals(colour(FILL, rect.getAttribute("style"))))
            .map((rect) -> (Rectangle2D) new Rectangle2D.Double(number(rect, "x"), number(rect, "y"), number(rect, "width"),
                    number(rect, "height")))
            .toList();
    }

    /** The lines drawn in the given colour. */
    List<Line2D> lines(Color stroke) {
        return elements("line").stream().filter((line) -> stroke.equals(colour(STROKE, line.getAttribute("style"))))
            .map((line) -> (Line2D) new Line2D.Double(number(line, "x1"), number(line, "y1"), number(line, "x2"), number(line, "y2")))
            .toList();
    }

    /** Every text, in the order drawn, joined by spaces, each run of white space one space. */
    String text() {
        return String.join(" ", strings()).replaceAll("[ \\t\\n]+", " ");
    }

    List<Element> elements(String tag) {
        NodeList nodes = this.document.getElementsByTagName(tag);
        return IntStream.range(0, nodes.getLength()).mapToObj((i) -> (Element) nodes.item(i)).toList();
    }

    private Text text(Element element) {
        String style = element.getAttribute("style");
        Matcher size = FONT_SIZE.matcher(style);
        Font font = new Font(Font.SANS_SERIF, style.contains("font-weight: bold") ? Font.BOLD : Font.PLAIN,
                size.find() ? (int) Double.parseDouble(size.group(1)) : 12);
        double width = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics().getFontMetrics(font)
            .getStringBounds(element.getTextContent(), null).getWidth();
        double x = number(element, "x");
        return new Text(element.getTextContent(), x, x + width, turned(element), clip(element.getAttribute("clip-path")));
    }

    /** Whether the element or a group around it is transformed (a turned axis label). */
    private static boolean turned(Element element) {
        for (Node node = element; node instanceof Element; node = node.getParentNode()) {
            if (!((Element) node).getAttribute("transform").isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** The bounds of the clip path that a {@code clip-path='url(#id)'} attribute names, or null. */
    private Rectangle2D clip(String reference) {
        if (reference.isEmpty()) {
            return null;
        }
        String id = reference.substring(reference.indexOf('#') + 1, reference.indexOf(')'));
        Element clip = elements("clipPath").stream().filter((element) -> id.equals(element.getAttribute("id"))).findFirst()
            .orElseThrow();
        String path = ((Element) clip.getElementsByTagName("path").item(0)).getAttribute("d");
        double[] numbers = Arrays.stream(path.split("[MLZ,]")).filter((part) -> !part.isBlank()).mapToDouble(Double::parseDouble)
            .toArray();
        double[] xs = IntStream.range(0, numbers.length / 2).mapToDouble((i) -> numbers[2 * i]).toArray();
        double[] ys = IntStream.range(0, numbers.length / 2).mapToDouble((i) -> numbers[2 * i + 1]).toArray();
        double minX = Arrays.stream(xs).min().orElseThrow();
        double minY = Arrays.stream(ys).min().orElseThrow();
        return new Rectangle2D.Double(minX, minY, Arrays.stream(xs).max().orElseThrow() - minX,
                Arrays.stream(ys).max().orElseThrow() - minY);
    }

    private static Color colour(Pattern property, String style) {
        Matcher colour = property.matcher(style);
        return colour.find() ? new Color(Integer.parseInt(colour.group(1)), Integer.parseInt(colour.group(2)),
                Integer.parseInt(colour.group(3))) : null;
    }

    private static double number(Element element, String attribute) {
        return Double.parseDouble(element.getAttribute(attribute));
    }

    /**
     * A text: its string, where it starts and ends (in the sans-serif font the chart measured it with), whether it
     * is turned (an axis label), and the area it is clipped to, if any.
     */
    record Text(String content, double left, double right, boolean turned, Rectangle2D clip) {

        /** Whether the text lies inside the picture of the given width, and inside its clip, to a pixel. */
        boolean fitsIn(double width) {
            double end = (this.clip != null) ? Math.min(width, this.clip.getMaxX()) : width;
            double start = (this.clip != null) ? Math.max(0, this.clip.getMinX()) : 0;
            return this.turned || (this.left >= start - 1 && this.right <= end + 1);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "'%s' from %.1f to %.1f", this.content, this.left, this.right);
        }

    }

}
