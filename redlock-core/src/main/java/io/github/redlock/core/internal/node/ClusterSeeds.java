package io.github.redlock.core.internal.node;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.redlock.core.NodeConnector;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

/**
 * Reads a cluster's view ({@code CLUSTER NODES}) from its seeds, for a cluster node that has no connected master to ask:
 * each seed in turn on a connection of its own, opened for the question and closed after it, until one answers within
 * the timeout.
 */
final class ClusterSeeds {

    private final NodeConnector connector;

    private final List<RedisURI> seeds;

    /** Whether the node closed: its resources may be gone, so no next seed is tried. */
    private final BooleanSupplier closed;

    private final long timeoutMillis;

    /** A view's text and the server that gave it (it names a master of a cluster of one without an address). */
    record ViewText(String view, RedisURI source) {
    }

    ClusterSeeds(NodeConnector connector, List<RedisURI> seeds, BooleanSupplier closed, long timeoutMillis) {
        this.connector = connector;
        this.seeds = List.copyOf(seeds);
        this.closed = closed;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Asks the seeds in turn until one answers.
     * @param last why the read before this one failed, the failure reported if no seed answers either; may be null
     * @return the first answer; failed with the last seed's failure when none answered
     */
    CompletableFuture<ViewText> read(@Nullable Throwable last) {
        return read(0, last);
    }

    private CompletableFuture<ViewText> read(int index, @Nullable Throwable last) {
        if (this.closed.getAsBoolean()) {
            return CompletableFuture.failedFuture(new IllegalStateException("closed"));
        }
        if (index >= this.seeds.size()) {
            return CompletableFuture.failedFuture((last != null) ? last : new IllegalStateException("no seed node"));
        }
        RedisURI source = this.seeds.get(index);
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> opening;
        try {
            opening = this.connector.connect(source).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            opening = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<ViewText> read = new CompletableFuture<>();
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> opened = opening;
        opened.whenComplete((connection, failure) -> {
            if (failure != null || connection == null) {
                read.completeExceptionally((failure != null) ? failure : new IllegalStateException("no connection"));
                return;
            }
            connection.async().clusterNodes().whenComplete((text, refused) -> {
                connection.closeAsync();
                if (refused != null || text == null) {
                    read.completeExceptionally((refused != null) ? refused : new IllegalStateException("no answer"));
                }
                else {
                    read.complete(new ViewText(text, source));
                }
            });
        });
        return read.orTimeout(this.timeoutMillis, TimeUnit.MILLISECONDS).handle((text, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(text);
            }
            opened.thenAccept(StatefulRedisConnection::closeAsync); // a connection that opens, or answers, too late
            return read(index + 1, failure);
        }).thenCompose((next) -> next);
    }

}
