package io.github.redlock.core.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The size bound of docs/contributing/architecture.md, as a ratchet: no source file of the core's main code over 400 lines, but the
 * front door ({@code Redlock}, its javadoc the contract's), held to the size it has: it may only shrink, and leaves the
 * list once under the bound.
 */
class ClassSizeTests {

    private static final int BOUND = 400;

    /** Over the bound today, at most as long as it is: to shrink, never to grow. */
    private static final Map<String, Integer> CEILINGS = Map.of("io/github/redlock/core/Redlock.java", 650);

    @Test
    void noSourceFileOfTheCoreGrowsPastItsBound() throws IOException {
        Path root = Path.of("src/main/java");
        assertThat(root).as("run from the core module's folder").isDirectory();
        Map<String, Long> over = new TreeMap<>();
        Map<String, Long> listedUnder = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
                String name = root.relativize(file).toString().replace('\\', '/');
                long lines;
                try (Stream<String> text = Files.lines(file)) {
                    lines = text.count();
                }
                Integer ceiling = CEILINGS.get(name);
                if (lines > ((ceiling != null) ? ceiling : BOUND)) {
                    over.put(name, lines);
                }
                else if (ceiling != null && lines <= BOUND) {
                    listedUnder.put(name, lines);
                }
            }
        }
        assertThat(over).as("files past their bound (%d lines, or their ceiling here): split them", BOUND).isEmpty();
        assertThat(listedUnder).as("files listed with a ceiling that are within the bound now: take them off the list").isEmpty();
    }

}
