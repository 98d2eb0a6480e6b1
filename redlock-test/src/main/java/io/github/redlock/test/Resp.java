package io.github.redlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

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
        try (Socket socket = open(port, timeoutMillis)) {
            return command(socket, args);
        }
    }

    /**
     * Opens a loopback connection to a node, for commands that must come from one connection that stays open.
     * @param port the node's loopback port
     * @param timeoutMillis connect and read timeout
     * @return the connected socket
     * @throws IOException when the node cannot be reached
     */
    static Socket open(int port, int timeoutMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            return socket;
        }
        catch (IOException ex) {
            socket.close();
            throw ex;
        }
    }

    /**
     * Sends a command over an open connection and returns the first reply line.
     * @param socket a connection from {@link #open(int, int)}
     * @param args the command and its arguments
     * @return the first line of the reply
     * @throws IOException when the node does not answer in time
     */
    static String command(Socket socket, String... args) throws IOException {
        StringBuilder request = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String arg : args) {
            request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg).append("\r\n");
        }
        OutputStream out = socket.getOutputStream();
        out.write(request.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        // Unbuffered, one byte at a time: the socket may be read again for the next command.
        String line = readLine(socket.getInputStream());
        if (line == null) {
            throw new IOException("Connection closed by redis-server on port " + socket.getPort());
        }
        return line;
    }

    private static @Nullable String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int read;
        while ((read = in.read()) != -1) {
            if (read == '\n') {
                int end = line.length();
                return (end > 0 && line.charAt(end - 1) == '\r') ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) read);
        }
        return (line.length() > 0) ? line.toString() : null;
    }

}
