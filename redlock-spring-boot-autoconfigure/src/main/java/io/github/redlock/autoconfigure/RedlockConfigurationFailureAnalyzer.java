package io.github.redlock.autoconfigure;

import io.github.redlock.aop.RedlockConfigurationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link RedlockConfigurationException} (a {@code @Redlocked} method that cannot work) with what is
 * wrong and what to write instead.
 */
class RedlockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<RedlockConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedlockConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

}
