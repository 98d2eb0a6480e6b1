package io.github.redlock.test.testcontainers;

import java.util.List;
import java.util.function.Supplier;

import io.github.redlock.autoconfigure.RedlockConnectionDetails;
import org.testcontainers.containers.Container;
import org.testcontainers.lifecycle.Startable;

import org.springframework.boot.testcontainers.lifecycle.TestcontainersStartup;

/**
 * {@link RedlockConnectionDetails} of every {@code @ServiceConnection("redlock")} container of a context, one node
 * each, in the order in which they were found. A container that is not running yet is started first, as Spring
 * Boot's own container connection details do.
 */
final class ContainersRedlockConnectionDetails implements RedlockConnectionDetails {

    private final List<Supplier<? extends Container<?>>> containers;

    ContainersRedlockConnectionDetails(List<Supplier<? extends Container<?>>> containers) {
        this.containers = List.copyOf(containers);
    }

    @Override
    public List<String> getNodes() {
        return this.containers.stream().map(Supplier::get).map((container) -> {
            if (container instanceof Startable startable) {
                TestcontainersStartup.start(startable);
            }
            return RedlockServiceConnections.uri(container);
        }).toList();
    }

    @Override
    public String toString() {
        return "ContainersRedlockConnectionDetails" + getNodes();
    }

}
