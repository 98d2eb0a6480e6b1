package io.github.redlock.autoconfigure.endpoint;

import io.github.redlock.actuate.endpoint.RedlockEndpoint;
import io.github.redlock.actuate.endpoint.RedlockEndpointWebExtension;
import io.github.redlock.autoconfigure.RedlockAutoConfiguration;
import io.github.redlock.core.Redlock;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@link RedlockEndpoint}, and of its revoke operation over
 * HTTP ({@link RedlockEndpointWebExtension}) when {@code redlock.endpoint.revoke.enabled=true}.
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(Redlock.class)
@ConditionalOnAvailableEndpoint(RedlockEndpoint.class)
public final class RedlockEndpointAutoConfiguration {

    RedlockEndpointAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean
    RedlockEndpoint redlockEndpoint(Redlock redlock) {
        return new RedlockEndpoint(redlock);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty("redlock.endpoint.revoke.enabled")
    @ConditionalOnAvailableEndpoint(endpoint = RedlockEndpoint.class, exposure = EndpointExposure.WEB)
    RedlockEndpointWebExtension redlockEndpointWebExtension(Redlock redlock) {
        return new RedlockEndpointWebExtension(redlock);
    }

}
