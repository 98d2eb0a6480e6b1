package io.github.redlock.chaos;

import java.awt.Color;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redlock.chaos.History.Fault;
import io.github.redlock.chaos.History.Kind;
import io.github.redlock.chaos.History.Operation;
import io.github.redlock.chaos.History.Outcome;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYDataset;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The timeline is an SVG document any XML parser reads: both series, grants and refusals per second, one band per
 * fault window that stays visible however short the fault and names it, a legend of the fault kinds present, and
 * texts that fit the picture.
 */
class TimelineTests {

    private static final long START = 3_000_000_000L;

    private static final List<Fault> FAULTS = List.of(new Fault(FaultKind.NODE_RESTART, at(1_000), at(2_000), "node 1 <killed> & restarted"),
            new Fault(FaultKind.CLOCK_JUMP, at(5_000), at(5_000), "node 3 +30 s"),
            new Fault(FaultKind.NODE_RESTART, at(8_000), at(9_500), "node 4"));

    private static final List<Operation> OPERATIONS = List.of(grant(500), grant(1_500), grant(1_600), refusal(2_500));

    @Test
    void theTimelineIsWellFormedXmlWithABandPerFaultNamedByItsTitle() throws Exception {
        SvgPicture svg = SvgPicture.parse(Timeline.svg("Chaos run seed <42> & co", START, at(10_000), OPERATIONS, FAULTS));
        List<Element> bands = svg.elements("g").stream().filter((group) -> "fault".equals(group.getAttribute("class"))).toList();
        assertThat(bands).hasSize(3);
        assertThat(bands).map((band) -> band.getElementsByTagName("title").item(0).getTextContent())
            .containsExactly("NODE_RESTART node 1 <killed> & restarted", "CLOCK_JUMP node 3 +30 s", "NODE_RESTART node 4");
        assertThat(bands).allSatisfy((band) -> assertThat(Double.parseDouble(((Element) band.getElementsByTagName("rect").item(0))
            .getAttribute("width"))).isGreaterThanOrEqualTo(TimelineRenderer.MIN_BAND_PIXELS - 0.05));
        assertThat(svg.strings()).contains("Chaos run seed <42> & co", "grants", "refusals", "NODE_RESTART", "CLOCK_JUMP",
                Timeline.TIME_AXIS, Timeline.RATE_AXIS).doesNotContain("MAJORITY_DOWN");
    }

    @Test
    void bothSeriesAreDrawnWithAPointPerSecondOfTheRun() throws Exception {
        SvgPicture svg = SvgPicture.parse(Timeline.svg("run", START, at(10_000), OPERATIONS, FAULTS));
        for (String series : List.of("grants", "refusals")) {
            List<Element> lines = svg.elements("g").stream().filter((group) -> series.equals(group.getAttribute("class"))).toList();
            assertThat(lines).as(series).singleElement().satisfies((line) -> {
                String path = ((Element) line.getElementsByTagName("path").item(0)).getAttribute("d");
                assertThat(path.chars().filter((c) -> c == 'M' || c == 'L')).as(series).hasSize(10);
            });
        }
        XYDataset perSecond = ((XYPlot) Timeline.chart("run", START, at(10_000), OPERATIONS, FAULTS).getPlot()).getDataset();
        assertThat(values(perSecond, 0)).containsExactly(1, 2, 0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(values(perSecond, 1)).containsExactly(0, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void aRunWithoutOperationsOrFaultsStillDrawsItsAxes() throws Exception {
        SvgPicture svg = SvgPicture.parse(Timeline.svg("empty", START, START, List.of(), List.of()));
        assertThat(svg.elements("g")).noneMatch((group) -> "fault".equals(group.getAttribute("class")));
        assertThat(svg.strings()).contains("empty", Timeline.TIME_AXIS, Timeline.RATE_AXIS, "0");
        assertThat(svg.elements("line")).hasSizeGreaterThan(2);
    }

    @Test
    void everyTextFitsThePictureALongTitleWrapped() throws Exception {
        String title = "Chaos run seed 20261125, 492.6 s, " + "with every fault under which the lock must stay safe, ".repeat(3);
        SvgPicture svg = SvgPicture.parse(Timeline.svg(title, START, at(10_000), OPERATIONS, FAULTS));
        assertThat(svg.texts()).allSatisfy((text) -> assertThat(text.fitsIn(svg.width())).as("%s fits in %s", text, svg.width())
            .isTrue());
        assertThat(svg.text()).startsWith(title.strip());
    }

    @Test
    void everyFaultKindHasItsOwnColour() {
        assertThat(Arrays.stream(FaultKind.values()).map(Timeline::colour).distinct()).hasSize(FaultKind.values().length)
            .doesNotContain(Timeline.GRANTS, Timeline.REFUSALS, Color.WHITE);
    }

    @Test
    void theSameRunDrawsTheSameDocument() {
        assertThat(Timeline.svg("run", START, at(10_000), OPERATIONS, FAULTS))
            .isEqualTo(Timeline.svg("run", START, at(10_000), OPERATIONS, FAULTS));
    }

    private static List<Integer> values(XYDataset dataset, int series) {
        return IntStream.range(0, dataset.getItemCount(series)).mapToObj((i) -> (int) dataset.getYValue(series, i)).toList();
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
