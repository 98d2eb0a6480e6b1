package io.github.redlock.chaos;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;

import javax.xml.parsers.DocumentBuilderFactory;

import io.github.redlock.chaos.History.Fault;
import io.github.redlock.chaos.History.Kind;
import io.github.redlock.chaos.History.Operation;
import io.github.redlock.chaos.History.Outcome;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The timeline is an SVG document any XML parser reads, with one band per fault window that stays visible
 * however short the fault, and a legend of the fault kinds present.
 */
class TimelineTests {

    private static final long START = 3_000_000_000L;

    @Test
    void theTimelineIsWellFormedXmlWithABandPerFault() throws Exception {
        List<Fault> faults = List.of(new Fault(FaultKind.NODE_RESTART, at(1_000), at(2_000), "node 1 <killed> & restarted"),
                new Fault(FaultKind.CLOCK_JUMP, at(5_000), at(5_000), "node 3 +30 s"),
                new Fault(FaultKind.NODE_RESTART, at(8_000), at(9_500), "node 4"));
        List<Operation> operations = List.of(grant(500), grant(1_500), grant(1_600), refusal(2_500));
        Document svg = parse(Timeline.svg("Chaos run seed <42> & co", START, at(10_000), operations, faults));
        assertThat(svg.getDocumentElement().getTagName()).isEqualTo("svg");
        List<Element> bands = faultBands(svg);
        assertThat(bands).hasSize(3);
        assertThat(bands).allSatisfy((band) -> assertThat(Double.parseDouble(band.getAttribute("width"))).isGreaterThanOrEqualTo(2));
        assertThat(svg.getDocumentElement().getTextContent()).contains("Chaos run seed <42> & co", "node 1 <killed> & restarted",
                "NODE_RESTART", "CLOCK_JUMP").doesNotContain("MAJORITY_DOWN");
    }

    @Test
    void aRunWithoutOperationsOrFaultsStillDrawsItsAxes() throws Exception {
        Document svg = parse(Timeline.svg("empty", START, START, List.of(), List.of()));
        assertThat(faultBands(svg)).isEmpty();
        assertThat(svg.getElementsByTagName("line").getLength()).isGreaterThan(2);
    }

    @Test
    void tickStepsAreOneTwoOrFiveTimesAPowerOfTen() {
        assertThat(Timeline.niceStep(0.7)).isEqualTo(1);
        assertThat(Timeline.niceStep(13)).isEqualTo(20);
        assertThat(Timeline.niceStep(301)).isEqualTo(500);
        assertThat(Timeline.niceStep(700)).isEqualTo(1000);
    }

    private static Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> faultBands(Document svg) {
        NodeList rects = svg.getElementsByTagName("rect");
        return IntStream.range(0, rects.getLength()).mapToObj((i) -> (Element) rects.item(i))
            .filter((rect) -> "fault".equals(rect.getAttribute("class"))).toList();
    }

    private static Operation grant(long millis) {
        return new Operation(1, 0, "x:1", Kind.EXCLUSIVE, at(millis - 10), at(millis), Outcome.GRANTED, "l" + millis, -1,
                at(millis + 1_000), at(millis + 100));
    }

    private static Operation refusal(long millis) {
        return new Operation(1, 0, "x:1", Kind.EXCLUSIVE, at(millis - 500), at(millis), Outcome.REFUSED, "-", -1, 0, 0);
    }

    private static long at(long millis) {
        return START + millis * 1_000_000;
    }

}
