package io.github.redlock.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

class RedlockConfigurationFailureAnalyzerTests {

    @Test
    void reportsTheDescriptionAndTheActionOfANestedConfigurationFailure() {
        RedlockConfigurationException cause = RedlockSettings.invalid(new IllegalArgumentException(
                "nodes must list at least one Redis master, e.g. nodes(\"redis://10.0.0.1:6379\")"));
        FailureAnalysis analysis = new RedlockConfigurationFailureAnalyzer()
                .analyze(new BeanCreationException("redlock", "Failed to instantiate", cause));
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).isEqualTo("redlock.nodes is missing or empty: the lock needs the URIs of "
                + "the Redis masters it runs on.");
        assertThat(analysis.getAction()).contains("redlock:\n", "  nodes:\n", "- redis://10.0.0.1:6379");
        assertThat(analysis.getCause()).isSameAs(cause);
    }

    @Test
    void namesTheKebabCasePropertyOfAnInvalidSetting() {
        RedlockConfigurationException failure = RedlockSettings.invalid(
                new IllegalArgumentException("nodeTimeout must be at least 1 ms, was PT0S"));
        assertThat(failure.getMessage()).isEqualTo("Invalid redlock.node-timeout must be at least 1 ms, was PT0S");
        assertThat(failure.getAction()).contains("redlock.node-timeout");
    }

    @Test
    void ignoresOtherFailures() {
        assertThat(new RedlockConfigurationFailureAnalyzer().analyze(new IllegalStateException("unrelated"))).isNull();
    }

}
