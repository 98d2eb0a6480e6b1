package io.github.redlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Sends one command over a fresh loopback connection and reads the first line of the reply, or the whole reply
 * ({@link #call(int, int, String...)}: bulk strings, integers, arrays). Enough for the harness's own needs (readiness
 * {@code PING}, {@code FLUSHALL}, {@code CLUSTER NODES}, {@code SENTINEL MASTER}) without pulling a Redis client into it.
 * Speaks RESP2, the protocol a connection has until it sends {@code HELLO 3}.
 */
final class Resp {

    private static final String LOOPBACK = InetAddress.getLoopbackAddress().getHostAddress();

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
        return command(LOOPBACK, port, timeoutMillis, args);
    }

    /** {@link #command(int, int, String...)} to a node at another address, e.g. in a {@link NetworkHost}. */
    static String command(String host, int port, int timeoutMillis, String... args) throws IOException {
        try (Socket socket = open(host, port, timeoutMillis)) {
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
        return open(LOOPBACK, port, timeoutMillis);
    }

    /** {@link #open(int, int)} to a node at another address, e.g. in a {@link NetworkHost}. */
    static Socket open(String host, int port, int timeoutMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
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
        write(socket, args);
        return requireLine(socket);
    }

    /**
     * Sends a command over a fresh loopback connection and reads its whole reply.
     * @param port the node's loopback port
     * @param timeoutMillis connect and read timeout
     * @param args the command and its arguments
     * @return the reply: a {@code String} (simple or bulk string), a {@code Long} (integer), a {@code List} (array,
     * its elements of these types), an {@link ErrorReply}, or null (a null bulk string or array)
     * @throws IOException when the node does not answer in time
     */
    static @Nullable Object call(int port, int timeoutMillis, String... args) throws IOException {
        return call(LOOPBACK, port, timeoutMillis, args);
    }

    /** {@link #call(int, int, String...)} to a node at another address, e.g. in a {@link NetworkHost}. */
    static @Nullable Object call(String host, int port, int timeoutMillis, String... args) throws IOException {
        try (Socket socket = open(host, port, timeoutMillis)) {
            write(socket, args);
            return readReply(socket);
        }
    }

    /**
     * An error reply, e.g. {@code ERR Unknown subcommand}.
     * @param message the reply without its leading {@code -}
     */
    record ErrorReply(String message) {

        @Override
        public String toString() {
            return "-" + this.message;
        }

    }

    private static void write(Socket socket, String... args) throws IOException {
        StringBuilder request = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String arg : args) {
            request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg).append("\r\n");
        }
        OutputStream out = socket.getOutputStream();
        out.write(request.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String requireLine(Socket socket) throws IOException {
        // Unbuffered, one byte at a time: the socket may be read again for the next command.
        String line = readLine(socket.getInputStream());
        if (line == null) {
            throw new IOException("Connection closed by redis-server on port " + socket.getPort());
        }
        return line;
    }

    private static @Nullable Object readReply(Socket socket) throws IOException {
        String line = requireLine(socket);
        if (line.isEmpty()) {
            throw new IOException("Empty reply line from redis-server on port " + socket.getPort());
        }
        String rest = line.substring(1);
        switch (line.charAt(0)) {
            case '+':
                return rest;
            case '-':
                return new ErrorReply(rest);
            case ':':
                return Long.parseLong(rest);
            case '$':
                return readBulk(socket, Integer.parseInt(rest));
            case '*':
                int count = Integer.parseInt(rest);
                if (count < 0) {
                    return null;
                }
                List<@Nullable Object> elements = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    elements.add(readReply(socket));
                }
                return elements;
            default:
                throw new IOException("Unexpected reply '" + line + "' from redis-server on port " + socket.getPort());
        }
    }

    private static @Nullable String readBulk(Socket socket, int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] bytes = socket.getInputStream().readNBytes(length + 2); // the string and its CRLF
        if (bytes.length < length + 2) {
            throw new IOException("Connection closed by redis-server on port " + socket.getPort() + " mid-reply");
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
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
