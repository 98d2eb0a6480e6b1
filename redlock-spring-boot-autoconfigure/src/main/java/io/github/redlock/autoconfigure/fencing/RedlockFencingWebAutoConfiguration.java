package io.github.redlock.autoconfigure.fencing;

import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.autoconfigure.RedlockProperties;
import io.github.redlock.fencing.web.FencingTokenExchangeFilter;
import io.github.redlock.fencing.web.FencingTokenRequestInterceptor;
import io.github.redlock.fencing.web.StaleFencingTokenExceptionResolver;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the fencing token over HTTP, with {@code redlock.fencing=true}:
 * Spring Boot's {@code RestClient.Builder} and {@code WebClient.Builder} send the current lease's token as the
 * {@code Redlock-Fencing-Token} header ({@code redlock.fencing-header=false} turns that off), and a servlet web
 * application answers a refused fenced commit ({@code StaleFencingTokenException}) with 409 (Conflict).
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnBean(RedlockProperties.class)
@ConditionalOnBooleanProperty("redlock.fencing")
public final class RedlockFencingWebAutoConfiguration {

    RedlockFencingWebAutoConfiguration() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    @ConditionalOnBooleanProperty(name = "redlock.fencing-header", matchIfMissing = true)
    static class RestClientHeader {

        @Bean
        RestClientCustomizer redlockFencingTokenRestClientCustomizer() {
            return (builder) -> builder.requestInterceptor(new FencingTokenRequestInterceptor());
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ WebClientCustomizer.class, reactor.core.publisher.Mono.class })
    @ConditionalOnBooleanProperty(name = "redlock.fencing-header", matchIfMissing = true)
    static class WebClientHeader {

        @Bean
        WebClientCustomizer redlockFencingTokenWebClientCustomizer() {
            return (builder) -> builder.filter(new FencingTokenExchangeFilter());
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
    static class StaleCommitAnswer {

        @Bean
        StaleFencingTokenExceptionResolver redlockStaleFencingTokenExceptionResolver() {
            return new StaleFencingTokenExceptionResolver();
        }

    }

}
