package io.github.redlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.redlock.aop.RedlockedAspect;
import io.github.redlock.fencing.internal.TransactionGuards;
import io.github.redlock.aop.RedlockedDefaults;
import io.github.redlock.connection.RedlockConnectionFactories;
import io.github.redlock.core.NodeConnector;
import io.github.redlock.core.Redlock;
import io.github.redlock.core.RedlockArgumentException;
import io.github.redlock.core.RedlockClientResources;
import io.github.redlock.core.RedlockObserver;
import io.github.redlock.core.observation.RedlockObservationConvention;
import io.lettuce.core.RedisCredentialsProvider;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of a {@link Redlock} over the nodes of
 * {@code redlock.nodes} (or a {@link RedlockConnectionDetails} bean), and of the aspect behind
 * {@link io.github.redlock.annotation.Redlocked @Redlocked}. {@code redlock.enabled=false} switches it off.
 * With an {@link ObservationRegistry} bean (Actuator defines one), acquisitions, releases and extensions are
 * observed, with a {@link RedlockObservationConvention} bean as their convention when there is one. A single
 * {@link RedisCredentialsProvider} bean authenticates every node, asked at every (re)connection (rotating passwords,
 * IAM tokens); {@code redlock.ssl.bundle} names the SSL bundle of {@code rediss://} nodes.
 */
@AutoConfiguration(afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass({ Redlock.class, LettuceConnectionFactory.class })
@ConditionalOnBooleanProperty(name = "redlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedlockProperties.class)
public final class RedlockAutoConfiguration {

    private static final Log logger = LogFactory.getLog(RedlockAutoConfiguration.class);

    RedlockAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(RedlockConnectionDetails.class)
    PropertiesRedlockConnectionDetails redlockConnectionDetails(RedlockProperties properties) {
        return new PropertiesRedlockConnectionDetails(properties);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    RedlockClientResources redlockClientResources(ObjectProvider<RedlockClientResourcesBuilderCustomizer> customizers) {
        return RedlockClientResources.create((builder) -> customizers.orderedStream().forEach((customizer) -> customizer.customize(builder)));
    }

    @Bean
    @ConditionalOnMissingBean
    RedlockConnectionFactories redlockConnectionFactories(RedlockProperties properties, RedlockClientResources resources,
            ObjectProvider<SslBundles> sslBundles) {
        Duration nodeTimeout = properties.getNodeTimeout();
        return new RedlockConnectionFactories((nodeTimeout != null) ? nodeTimeout : NodeConnector.DEFAULT_NODE_TIMEOUT, resources.resources(),
                sslOptions(properties.getSsl().getBundle(), sslBundles));
    }

    /** The Lettuce TLS options of {@code redlock.ssl.bundle}'s bundle, or null when none is named. */
    private static io.lettuce.core.@Nullable SslOptions sslOptions(@Nullable String bundleName, ObjectProvider<SslBundles> sslBundles) {
        if (bundleName == null || bundleName.isBlank()) {
            return null;
        }
        SslBundles bundles = sslBundles.getIfAvailable();
        if (bundles == null) {
            throw new InvalidConfigurationPropertyValueException("redlock.ssl.bundle", bundleName,
                    "No SSL bundles are configured; define it under spring.ssl.bundle.pem." + bundleName + " (or .jks)");
        }
        SslBundle bundle = bundles.getBundle(bundleName); // NoSuchSslBundleException names the bundle and what exists
        io.lettuce.core.SslOptions.Builder options = io.lettuce.core.SslOptions.builder().jdkSslProvider()
                .keyManager(bundle.getManagers().getKeyManagerFactory())
                .trustManager(bundle.getManagers().getTrustManagerFactory());
        SslOptions bundleOptions = bundle.getOptions();
        if (bundleOptions.getCiphers() != null) {
            options.cipherSuites(bundleOptions.getCiphers());
        }
        if (bundleOptions.getEnabledProtocols() != null) {
            options.protocols(bundleOptions.getEnabledProtocols());
        }
        return options.build();
    }

    @Bean(destroyMethod = "close")
    LeaseLostEvents redlockLeaseLostEvents(ApplicationEventPublisher publisher, Environment environment) {
        if (Threading.VIRTUAL.isActive(environment)) { // spring.threads.virtual.enabled=true on Java 21 or later
            return new LeaseLostEvents(publisher, new VirtualThreadTaskExecutor(LeaseLostEvents.THREAD_NAME + "-").getVirtualThreadFactory());
        }
        return new LeaseLostEvents(publisher);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Redlock redlock(RedlockProperties properties, RedlockConnectionDetails connectionDetails,
            RedlockConnectionFactories connections, ObjectProvider<RedlockObserver> observer,
            ObjectProvider<ObservationRegistry> observationRegistry, ObjectProvider<RedlockObservationConvention> observationConvention,
            ObjectProvider<RedisCredentialsProvider> credentials, Environment environment) {
        List<String> nodes = connectionDetails.getNodes();
        try {
            Redlock.Builder builder = Redlock.builder().nodes(nodes);
            // Only what the application set: the core's defaults are the only defaults.
            PropertyMapper map = PropertyMapper.get();
            map.from(properties::getNodeTimeout).to(builder::nodeTimeout);
            map.from(properties::getClockDriftFactor).to(builder::clockDriftFactor);
            map.from(properties::getRetryDelay).to(builder::retryDelay);
            map.from(properties::getKeyPrefix).to(builder::keyPrefix);
            String instanceId = properties.getInstanceId();
            builder.instanceId((instanceId != null) ? instanceId : Redlock.defaultInstanceId(environment.getProperty("spring.application.name")));
            map.from(properties::getAcquisitionBudget).to(builder::acquisitionBudget);
            map.from(properties::getMaxTtl).to(builder::maxTtl);
            map.from(properties::getRestartQuarantine).to(builder::restartQuarantine);
            map.from(properties::getFencing).to(builder::fencing);
            Redlock redlock = builder
                    .clientResources(connections.clientResources())
                    .connector(connections.connector())
                    .credentialsProvider(credentials.getIfUnique())
                    .observer(RedlockObservers.of(observer.orderedStream().toList()))
                    .observationRegistry(observationRegistry.getIfUnique())
                    .observationConvention(observationConvention.getIfUnique())
                    .build();
            warnAboutNodeCount(nodes.size());
            return redlock;
        }
        catch (RedlockArgumentException ex) {
            throw RedlockSettings.invalid(ex, properties, nodes);
        }
    }

    @Bean
    @ConditionalOnMissingBean
    static RedlockedAspect redlockedAspect(BeanFactory beanFactory, Environment environment) {
        // Static, with the properties looked up lazily, so that creating it early initialises nothing else.
        RedlockedAspect aspect = new RedlockedAspect(beanFactory, environment, () -> {
            RedlockProperties properties = beanFactory.getBean(RedlockProperties.class);
            return new RedlockedDefaults(properties.getDefaultTtl(), properties.getDefaultWaitTime(), properties.getDefaultMaxHold(),
                    beanFactory.getBean(Redlock.class).maxTtl());
        });
        // Bound from the environment: the order is asked for while beans are proxied, which may be before the
        // RedlockProperties bean is bound. A value that is not a number fails here, naming the property.
        aspect.setOrder(Binder.get(environment).bind("redlock.aspect-order", Integer.class)
                .orElse(RedlockedAspect.DEFAULT_ORDER));
        return aspect;
    }

    @Bean
    static BeanPostProcessor redlockedMethodValidator(ObjectProvider<RedlockedAspect> aspect) {
        return RedlockedAspect.validator(aspect);
    }

    /** Lets the transactions of {@code @Redlocked(fenced = true)} methods check their fences, whichever the aspect's order. */
    @Bean
    @ConditionalOnBooleanProperty("redlock.fencing")
    static BeanPostProcessor redlockFencedTransactionManagers() {
        return TransactionGuards.registrar();
    }

    private static void warnAboutNodeCount(int count) {
        if (count < 3) {
            logger.warn("redlock.nodes lists " + count + " node(s): with fewer than 3 independent masters, losing one "
                    + "node stops all locking (quorum " + (count / 2 + 1) + " of " + count + "); list 3 or 5 nodes");
        }
        else if (count % 2 == 0) {
            logger.warn("redlock.nodes lists an even number of nodes (" + count + "): the quorum is " + (count / 2 + 1)
                    + ", so " + count + " nodes survive no more failures than " + (count - 1) + "; list an odd number");
        }
    }

}
