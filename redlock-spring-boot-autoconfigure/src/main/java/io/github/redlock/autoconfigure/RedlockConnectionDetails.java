package io.github.redlock.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Details required to reach the Redis masters of the lock. By default they come from {@code redlock.nodes};
 * a bean of this type (e.g. from Testcontainers) takes their place.
 */
public interface RedlockConnectionDetails extends ConnectionDetails {

    /**
     * Returns the URIs of the independent Redis masters, e.g. {@code redis://10.0.0.1:6379}.
     * @return the node URIs, in order
     */
    List<String> getNodes();

}
