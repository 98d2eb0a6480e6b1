package io.github.redlock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of the repository's Markdown files leads somewhere: the file or directory exists, and an anchor
 * ({@code #part}) is the GitHub slug of a heading (or an HTML anchor) of the Markdown file it points into: lowercase,
 * punctuation dropped, spaces to {@code -}, a repeated heading suffixed {@code -1}, {@code -2}, ... Links in fenced
 * code blocks and code spans are not links; {@code target/}, {@code .git/} and {@code node_modules/} are left out. A unit
 * test, run by {@code ./mvnw test}, so that a page moved or a heading renamed fails the build where a link still
 * points at it.
 */
class DocumentationLinksTests {

    private static final Set<String> SKIPPED = Set.of("target", ".git", "node_modules");

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");

    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})[ \\t]+(.*?)[ \\t]*#*[ \\t]*$");

    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+[\"'(][^)]*)?\\)");

    private static final Pattern REFERENCE = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s|$)");

    private static final Pattern HTML_LINK = Pattern.compile("<(?:a|img)\\s[^>]*?(?:href|src)=[\"']([^\"']+)[\"']", Pattern.CASE_INSENSITIVE);

    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*?(?:name|id)=[\"']([^\"']+)[\"']", Pattern.CASE_INSENSITIVE);

    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");

    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkOfTheDocumentationLeadsToAFileAndHeadingThatExist() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> pages = markdownFiles(root);
        assertThat(pages).as("the repository's Markdown files").contains(root.resolve("README.md"), root.resolve("docs/README.md"));
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            broken.addAll(brokenLinks(root, page));
        }
        assertThat(broken).as("broken links, as file:line: target").isEmpty();
    }

    @Test
    void theCheckFindsAMissingPageAndAMissingHeading(@TempDir Path root) throws IOException {
        Files.writeString(root.resolve("a.md"), "# Title\n\n## Two words, here\n\n[ok](#two-words-here) [gone](#nowhere) [file](b.md)\n"
                + "```\n[in a fence](c.md)\n```\n`[in a span](c.md)`\n[elsewhere](https://example.org/x.md)\n");
        assertThat(brokenLinks(root, root.resolve("a.md"))).containsExactly("a.md:5: #nowhere (no heading 'nowhere' in a.md)",
                "a.md:5: b.md (no such file)");
    }

    private static List<Path> markdownFiles(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {

            @Override
            public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
                return SKIPPED.contains(directory.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                if (attributes.isRegularFile() && file.getFileName().toString().endsWith(".md")) {
                    pages.add(file);
                }
                return FileVisitResult.CONTINUE;
            }

        });
        pages.sort(null);
        return pages;
    }

    private List<String> brokenLinks(Path root, Path page) throws IOException {
        List<String> broken = new ArrayList<>();
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        for (int number : linesOutsideFences(lines)) {
            String visible = CODE_SPAN.matcher(lines.get(number - 1)).replaceAll((match) -> " ".repeat(match.group().length()));
            List<String> targets = new ArrayList<>();
            for (Pattern pattern : List.of(INLINE_LINK, HTML_LINK)) {
                Matcher matcher = pattern.matcher(visible);
                while (matcher.find()) {
                    targets.add(matcher.group(1));
                }
            }
            Matcher reference = REFERENCE.matcher(visible);
            if (reference.find()) {
                targets.add(reference.group(1));
            }
            for (String target : targets) {
                String problem = problem(root, page, target);
                if (problem != null) {
                    broken.add(root.relativize(page) + ":" + number + ": " + target + " (" + problem + ")");
                }
            }
        }
        return broken;
    }

    private String problem(Path root, Path page, String target) {
        if (SCHEME.matcher(target).find() || target.startsWith("//")) {
            return null; // http:, https:, mailto: and the like
        }
        int hash = target.indexOf('#');
        String path = URLDecoder.decode((hash < 0) ? target : target.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = (hash < 0) ? "" : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? page
                : path.startsWith("/") ? root.resolve(path.substring(1)) : page.getParent().resolve(path).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (!anchor.isEmpty() && resolved.toString().endsWith(".md") && Files.isRegularFile(resolved)
                && !anchorsOf(resolved).contains(URLDecoder.decode(anchor, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT))) {
            return "no heading '" + anchor + "' in " + root.relativize(resolved);
        }
        return null;
    }

    private Set<String> anchorsOf(Path page) {
        return this.anchors.computeIfAbsent(page, (path) -> {
            try {
                List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
                Set<String> found = new HashSet<>();
                Map<String, Integer> seen = new HashMap<>();
                for (int number : linesOutsideFences(lines)) {
                    String line = lines.get(number - 1);
                    Matcher heading = HEADING.matcher(line);
                    if (heading.matches()) {
                        String base = slug(heading.group(2));
                        int count = seen.merge(base, 1, Integer::sum) - 1;
                        found.add((count == 0) ? base : base + "-" + count);
                    }
                    Matcher anchor = HTML_ANCHOR.matcher(line);
                    while (anchor.find()) {
                        found.add(anchor.group(1));
                    }
                }
                return found;
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        });
    }

    /** GitHub's slug of a heading: a link's text stays, its target and HTML tags go, then lowercase without punctuation. */
    private static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "").replace("`", "")
                .toLowerCase(Locale.ROOT);
        return Pattern.compile("[^\\w\\- ]", Pattern.UNICODE_CHARACTER_CLASS).matcher(text).replaceAll("").replace(' ', '-');
    }

    /** The numbers (from 1) of the lines outside fenced code blocks. */
    private static List<Integer> linesOutsideFences(List<String> lines) {
        List<Integer> outside = new ArrayList<>();
        String fence = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher match = FENCE.matcher(line);
            boolean found = match.find();
            if (fence == null) {
                if (found) {
                    fence = match.group(1);
                    continue;
                }
                outside.add(i + 1);
            }
            else if (found && match.group(1).charAt(0) == fence.charAt(0) && match.group(1).length() >= fence.length()
                    && line.strip().equals(match.group(1))) {
                fence = null;
            }
        }
        return outside;
    }

}
