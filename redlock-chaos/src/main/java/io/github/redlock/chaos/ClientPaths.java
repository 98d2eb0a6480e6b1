package io.github.redlock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.github.redlock.test.RedisNode;
import io.github.redlock.test.RedisSentinelGroup;
import io.github.redlock.test.TcpProxy;

/**
 * The network paths of one client process ({@link #CLIENT}) to some standalone nodes of the lock and to every sentinel
 * of the run's Sentinel group, through TCP proxies ({@link TcpProxy}) that the run owns, for
 * {@link FaultKind#DEPOSED_MASTER}: {@link #silence()} makes them drop every byte both ways while the sockets stay
 * open, as a network that loses packets without telling either end, and {@link #restore()} forwards again. The client
 * reaches the group's servers (the master among them) directly: the sentinels name their real addresses.
 * <p>
 * The cut standalone nodes are the first {@code cut} of the run's list, so that the client keeps exactly a bare
 * majority with the group among it (e.g. two of four standalone nodes cut beside the group: the group and two nodes).
 * The other clients reach every node directly. Proxies forward to a node's port, so a node restarted on it by another
 * fault is reached again. {@link #close()} closes every proxy; the run calls it in its {@code finally}.
 * <p>
 * Thread-safety: {@link #silence()} and {@link #restore()} may be called from any thread (each proxy's switch is a
 * volatile field); the lists never change after {@link #start}.
 */
final class ClientPaths implements AutoCloseable {

    /** The index of the client process whose paths these are. */
    static final int CLIENT = 0;

    /** How many of the standalone nodes, the first of the list, the client reaches through a proxy. */
    private final int cut;

    private final List<TcpProxy> nodes;

    private final List<TcpProxy> sentinels;

    private final String masterName;

    private ClientPaths(int cut, List<TcpProxy> nodes, List<TcpProxy> sentinels, String masterName) {
        this.cut = cut;
        this.nodes = nodes;
        this.sentinels = sentinels;
        this.masterName = masterName;
    }

    /**
     * Starts a proxy to each of the first {@code cut} standalone nodes and to every sentinel of the group, all
     * forwarding; the proxies already started are closed when one cannot be.
     * @param standalone the run's standalone nodes of the lock, in the order of the node list
     * @param cut how many of them (the first) the client reaches through a proxy
     * @param group the run's Sentinel group
     */
    static ClientPaths start(List<RedisNode> standalone, int cut, RedisSentinelGroup group) {
        if (cut < 1 || cut > standalone.size()) {
            throw new IllegalArgumentException("client " + CLIENT + " must reach between 1 and " + standalone.size()
                    + " standalone nodes through a proxy; was asked for " + cut);
        }
        List<TcpProxy> started = new ArrayList<>();
        try {
            List<TcpProxy> nodes = new ArrayList<>();
            for (RedisNode node : standalone.subList(0, cut)) {
                nodes.add(started(started, TcpProxy.to(node)));
            }
            List<TcpProxy> sentinels = new ArrayList<>();
            for (RedisNode sentinel : group.sentinels()) {
                sentinels.add(started(started, TcpProxy.to(sentinel)));
            }
            return new ClientPaths(cut, List.copyOf(nodes), List.copyOf(sentinels), group.masterName());
        }
        catch (RuntimeException ex) {
            started.forEach(TcpProxy::close);
            throw ex;
        }
    }

    private static TcpProxy started(List<TcpProxy> started, TcpProxy proxy) {
        started.add(proxy);
        return proxy;
    }

    /**
     * The client's node list: the run's, with the cut standalone nodes and the Sentinel group's entry replaced by their
     * proxies (the group's entry lists the sentinels' proxies, in the same order, under the same master name).
     * @param standalone the standalone nodes' URIs, in the run's order
     * @param group the group's entry in the run's list
     * @param uris the run's node list: the standalone nodes, then the group and whatever follows
     */
    List<String> nodeUris(List<String> standalone, String group, List<String> uris) {
        List<String> mine = new ArrayList<>(uris);
        for (int i = 0; i < this.cut; i++) {
            mine.set(uris.indexOf(standalone.get(i)), "redis://" + this.nodes.get(i).hostAndPort());
        }
        mine.set(uris.indexOf(group), this.sentinels.stream().map(TcpProxy::hostAndPort)
                .collect(Collectors.joining(",", "redis-sentinel://", "#" + this.masterName)));
        return List.copyOf(mine);
    }

    /** The standalone nodes the client reaches through a proxy, by index in the run's list: the first {@code cut}. */
    List<Integer> cutNodes() {
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < this.cut; i++) {
            indexes.add(i);
        }
        return List.copyOf(indexes);
    }

    /** Drops every byte on the client's proxied paths from now on, both ways, keeping the connections open. */
    void silence() {
        this.nodes.forEach(TcpProxy::silence);
        this.sentinels.forEach(TcpProxy::silence);
    }

    /** Forwards on every proxied path again (what was sent while silent stays lost). Does nothing when none is silent. */
    void restore() {
        this.nodes.forEach(TcpProxy::restore);
        this.sentinels.forEach(TcpProxy::restore);
    }

    /** Closes every proxy and its connections. */
    @Override
    public void close() {
        this.nodes.forEach(TcpProxy::close);
        this.sentinels.forEach(TcpProxy::close);
    }

}
