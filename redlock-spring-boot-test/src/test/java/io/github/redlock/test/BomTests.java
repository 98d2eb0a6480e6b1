package io.github.redlock.test;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redlock-bom} lists exactly the published modules, each at the project's version, and carries
 * {@code redlock-parent}'s version and publishing metadata, which it copies because it has no parent (see its
 * pom.xml). A published module is a module of the root pom.xml that is not a pom and does not set
 * {@code maven.deploy.skip}. Reads the pom.xml files of the source tree, so it needs no build of the other modules.
 */
class BomTests {

    private static final Path ROOT = Paths.get(System.getProperty("user.dir")).resolve("..").normalize();

    private static final String BOM = "redlock-bom";

    private static final String[] SHARED_METADATA = { "version", "url", "licenses", "developers", "scm",
            "issueManagement" };

    private final XPath xpath = XPathFactory.newInstance().newXPath();

    @Test
    void theBomListsEveryPublishedModuleAndNothingElse() throws Exception {
        List<String> published = publishedModules();
        assertThat(published).as("published modules of %s", ROOT.resolve("pom.xml"))
                .contains("redlock-core", "redlock-spring-boot-starter");
        assertThat(strings(pom(BOM), "/project/dependencyManagement/dependencies/dependency/artifactId"))
                .as("artifacts in redlock-bom/pom.xml: add each published module there, or set maven.deploy.skip in a "
                        + "module that is not published")
                .containsExactlyInAnyOrderElementsOf(published);
    }

    @Test
    void everyArtifactOfTheBomIsOursAtTheProjectVersion() throws Exception {
        Document bom = pom(BOM);
        assertThat(strings(bom, "/project/dependencyManagement/dependencies/dependency/groupId")).isNotEmpty()
                .containsOnly("io.github.redlock");
        assertThat(strings(bom, "/project/dependencyManagement/dependencies/dependency/version")).isNotEmpty()
                .containsOnly("${project.version}");
    }

    @Test
    void theBomHasTheParentsVersionAndPublishingMetadata() throws Exception {
        Document parent = read(ROOT.resolve("pom.xml"));
        Document bom = pom(BOM);
        for (String element : SHARED_METADATA) {
            String expression = "normalize-space(/project/" + element + ")";
            String expected = this.xpath.evaluate(expression, parent);
            assertThat(expected).as("<%s> of redlock-parent", element).isNotBlank();
            assertThat(this.xpath.evaluate(expression, bom)).as("<%s> of redlock-bom, a copy of redlock-parent's", element)
                    .isEqualTo(expected);
        }
    }

    @Test
    void everyPublishedPomHasANameAndADescription() throws Exception {
        List<String> poms = new ArrayList<>(publishedModules());
        poms.add(BOM);
        for (String module : poms) {
            Document pom = pom(module);
            assertThat(this.xpath.evaluate("normalize-space(/project/name)", pom)).as("<name> of %s", module).isNotBlank();
            assertThat(this.xpath.evaluate("normalize-space(/project/description)", pom)).as("<description> of %s", module)
                    .isNotBlank();
        }
    }

    private List<String> publishedModules() throws Exception {
        List<String> published = new ArrayList<>();
        for (String module : strings(read(ROOT.resolve("pom.xml")), "/project/modules/module")) {
            Document pom = pom(module);
            boolean isPom = "pom".equals(this.xpath.evaluate("normalize-space(/project/packaging)", pom));
            boolean skipped = "true".equals(this.xpath.evaluate("normalize-space(/project/properties/maven.deploy.skip)", pom));
            if (!isPom && !skipped) {
                published.add(this.xpath.evaluate("normalize-space(/project/artifactId)", pom));
            }
        }
        return published;
    }

    private List<String> strings(Document document, String expression) throws XPathExpressionException {
        NodeList nodes = (NodeList) this.xpath.evaluate(expression, document, XPathConstants.NODESET);
        List<String> strings = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node node = nodes.item(i);
            strings.add(node.getTextContent().strip());
        }
        return strings;
    }

    private static Document pom(String module) throws ParserConfigurationException, SAXException, IOException {
        return read(ROOT.resolve(module).resolve("pom.xml"));
    }

    private static Document read(Path pom) throws ParserConfigurationException, SAXException, IOException {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(pom.toFile());
    }

}
