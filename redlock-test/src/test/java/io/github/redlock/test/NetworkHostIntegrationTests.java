package io.github.redlock.test;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests that a node in a {@link NetworkHost} is reached by each client over its own link, that cutting one client's link
 * loses that client's packets silently (no reply, no reset, no refused connection) while another client still reaches
 * the node, that healing it restores the same connection, and that a restarted node stays in its namespace.
 */
class NetworkHostIntegrationTests {

    @BeforeAll
    static void namespaces() {
        Capabilities.assume(Capabilities.NETNS, NetworkHost.available(), "Network namespaces cannot be made here (run as root with iproute2)");
    }

    @Test
    void aCutLinkLosesOneClientsPacketsSilentlyWhileTheOtherClientStillReachesTheNode() throws IOException {
        try (NetworkHost host = NetworkHost.create(2); RedisNode node = RedisNode.startIn(host, Map.of(), false);
                Socket first = Resp.open(host.addressFor(0), node.port(), 2000);
                Socket second = Resp.open(host.addressFor(1), node.port(), 2000)) {
            assertThat(node.uri()).isEqualTo("redis://" + host.address() + ":" + node.port());
            assertThat(Resp.command(first, "SET", "k", "v")).isEqualTo("+OK");
            host.cut(0);
            assertThat(host.isCut(0)).isTrue();
            first.setSoTimeout(500);
            assertThatExceptionOfType(SocketTimeoutException.class).as("no reply, and no reset").isThrownBy(() -> Resp.command(first, "PING"));
            assertThat(first.isClosed()).isFalse();
            assertThatExceptionOfType(SocketTimeoutException.class).as("a new connection is not answered, nor refused")
                    .isThrownBy(() -> Resp.open(host.addressFor(0), node.port(), 500).close());
            assertThat(Resp.command(second, "GET", "k")).as("the other client's link").isEqualTo("$1");
            assertThat(Resp.command(host.address(), node.port(), 2000, "PING")).as("the harness's link").isEqualTo("+PONG");
            host.heal(0);
            first.setSoTimeout(5000);
            // The PING sent while cut is retransmitted once the link is back: its reply comes first.
            assertThat(Resp.command(first, "PING")).isEqualTo("+PONG");
        }
    }

    @Test
    void aRestartedNodeStaysInItsNamespace() throws IOException {
        try (NetworkHost host = NetworkHost.create(1); RedisNode node = RedisNode.startIn(host, Map.of(), false)) {
            int port = node.port();
            node.restart();
            assertThat(node.port()).isEqualTo(port);
            assertThat(Resp.command(host.addressFor(0), port, 2000, "PING")).isEqualTo("+PONG");
            assertThatExceptionOfType(IOException.class).as("not on this namespace's loopback")
                    .isThrownBy(() -> Resp.command(port, 500, "PING"));
        }
    }

    @Test
    void aClientOutsideTheHostsLinksIsRefusedClearly() {
        try (NetworkHost host = NetworkHost.create(1)) {
            assertThatIllegalArgumentException().isThrownBy(() -> host.cut(1)).withMessageContaining("client links 0 to 0");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> NetworkHost.create(0)).withMessageContaining("1 to 62");
    }

}
