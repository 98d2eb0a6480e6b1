package io.github.redlock.test;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that {@link TcpProxy} forwards to a real server, and that while silent it answers nothing and closes nothing: a
 * command sent then gets no reply (not even a reset) until the proxy forwards again, and the connection still works
 * after that.
 */
class TcpProxyIntegrationTests {

    @Test
    void forwardsThenDropsEveryByteWithoutClosingThenForwardsAgain() throws IOException {
        try (RedisNode node = RedisNode.start(); TcpProxy proxy = TcpProxy.to(node); Socket socket = Resp.open(proxy.port(), 2000)) {
            assertThat(Resp.command(socket, "PING")).isEqualTo("+PONG");
            proxy.silence();
            assertThat(proxy.isSilent()).isTrue();
            socket.setSoTimeout(500);
            assertThatExceptionOfType(SocketTimeoutException.class).as("no reply, and no reset")
                    .isThrownBy(() -> Resp.command(socket, "PING"));
            assertThat(socket.isClosed()).isFalse();
            proxy.restore();
            socket.setSoTimeout(2000);
            // The PING sent while silent was lost: the next command's reply is the next one read.
            assertThat(Resp.command(socket, "ECHO", "after")).isEqualTo("$5");
            try (Socket another = Resp.open(proxy.port(), 2000)) {
                assertThat(Resp.command(another, "PING")).isEqualTo("+PONG");
            }
        }
    }

}
