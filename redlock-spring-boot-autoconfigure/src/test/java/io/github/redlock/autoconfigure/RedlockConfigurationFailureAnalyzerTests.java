package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redlock.aop.RedlockConfigurationException;
import io.github.redlock.core.RedlockArgumentException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

class RedlockConfigurationFailureAnalyzerTests {

    @Test
    void reportsTheDescriptionOfANestedAnnotationFailure() {
        FailureAnalysis analysis = analyzeNested(blankKey());
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).isEqualTo("@Redlocked key '' of Jobs.run() is blank.");
    }

    @Test
    void reportsTheActionOfANestedAnnotationFailure() {
        FailureAnalysis analysis = analyzeNested(blankKey());
        assertThat(analysis).isNotNull();
        assertThat(analysis.getAction()).isEqualTo("Give the key a name.");
    }

    @Test
    void keepsTheNestedAnnotationFailureAsTheCause() {
        RedlockConfigurationException cause = blankKey();
        FailureAnalysis analysis = analyzeNested(cause);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getCause()).isSameAs(cause);
    }

    private static RedlockConfigurationException blankKey() {
        return new RedlockConfigurationException("@Redlocked key '' of Jobs.run() is blank.", "Give the key a name.", null);
    }

    /** Analyzes a bean creation failure caused by {@code cause}, as a start-up with a bad annotation has. */
    private static FailureAnalysis analyzeNested(RedlockConfigurationException cause) {
        return new RedlockConfigurationFailureAnalyzer().analyze(new BeanCreationException("jobs", "Failed to instantiate", cause));
    }

    @Test
    void missingNodesAreReportedAsTheNodesPropertyWithWhatToWrite() {
        InvalidConfigurationPropertyValueException failure = RedlockSettings.invalid(new RedlockArgumentException("nodes",
                "nodes must list at least one Redis master, e.g. nodes(\"redis://10.0.0.1:6379\")"), new RedlockProperties(), List.of());
        assertThat(failure.getName()).isEqualTo("redlock.nodes");
        assertThat(failure.getReason()).startsWith("redlock.nodes is missing or empty: the lock needs the URIs of the Redis masters")
                .contains("redlock:\n", "  nodes:\n", "- redis://10.0.0.1:6379");
    }

    @Test
    void anInvalidSettingIsReportedAsItsKebabCasePropertyWithItsValue() {
        RedlockProperties properties = new RedlockProperties();
        properties.setNodeTimeout(Duration.ZERO);
        InvalidConfigurationPropertyValueException failure = RedlockSettings.invalid(
                new RedlockArgumentException("nodeTimeout", "nodeTimeout must be at least 1 ms, was PT0S"), properties, List.of());
        assertThat(failure.getName()).isEqualTo("redlock.node-timeout");
        assertThat(failure.getValue()).isEqualTo(Duration.ZERO);
        assertThat(failure.getReason()).isEqualTo("nodeTimeout must be at least 1 ms, was PT0S");
    }

    @Test
    void ignoresOtherFailures() {
        assertThat(new RedlockConfigurationFailureAnalyzer().analyze(new IllegalStateException("unrelated"))).isNull();
    }

}
