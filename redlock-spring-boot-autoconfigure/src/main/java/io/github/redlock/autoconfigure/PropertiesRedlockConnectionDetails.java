package io.github.redlock.autoconfigure;

import java.util.List;

/**
 * {@link RedlockConnectionDetails} from {@code redlock.nodes}.
 */
final class PropertiesRedlockConnectionDetails implements RedlockConnectionDetails {

    private final RedlockProperties properties;

    PropertiesRedlockConnectionDetails(RedlockProperties properties) {
        this.properties = properties;
    }

    @Override
    public List<String> getNodes() {
        return this.properties.getNodes();
    }

}
