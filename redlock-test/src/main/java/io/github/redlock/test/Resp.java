package io.github.redlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Sends one command over a fresh loopback connection and reads the first line of the reply. Enough for
 * the harness's own needs (readiness PING, FLUSHALL) without pulling a Redis client into it.
 */
final class Resp {

    private Resp() {
    }

    /**
     * Sends a command and returns the first reply line, e.g. {@code +PONG} or {@code -ERR …}.
     * @param port the node's loopback port
     * @param timeoutMillis connect and read timeout
     * @param args the command and its arguments
     * @return the first line of the reply
     * @throws IOException when the node does not answer in time
     */
    static String command(int port, int timeoutMillis, String... args) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            StringBuilder request = new StringBuilder().append('*').append(args.length).append("\r\n");
            for (String arg : args) {
                request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                        .append(arg).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null) {
                throw new IOException("Connection closed by redis-server on port " + port);
            }
            return line;
        }
    }

}
