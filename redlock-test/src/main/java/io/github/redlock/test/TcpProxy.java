package io.github.redlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a free loopback port to one server, whose network can be made to lose every packet: while it is
 * {@linkplain #silence() silent}, each connection stays open at both ends (no reset, no close) and every byte sent either
 * way is dropped, as on a network path that fails without telling the endpoints. New connections are accepted and
 * stay silent too. A client sees commands that are never answered, never a disconnect: the fault that only a timeout
 * or a missing confirmation reveals, which {@link RedisNode#cutOff()} (a refused, visible cut) does not show.
 * <p>
 * For tests: one platform thread accepts, two per connection copy bytes; all are daemon threads and end at
 * {@link #close()}.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;

    private final String targetHost;

    private final int targetPort;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile boolean silent;

    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-proxy-" + this.server.getLocalPort() + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a proxy to a server.
     * @param host the server's host
     * @param port its port
     * @return the proxy, forwarding
     */
    public static TcpProxy to(String host, int port) {
        try {
            return new TcpProxy(host, port);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot start a proxy to " + host + ":" + port, ex);
        }
    }

    /**
     * Starts a proxy to a node started by this harness.
     * @param node the node
     * @return the proxy, forwarding
     */
    public static TcpProxy to(RedisNode node) {
        String hostAndPort = node.hostAndPort(); // the harness's address of a node in a NetworkHost
        return to(hostAndPort.substring(0, hostAndPort.lastIndexOf(':')), node.port());
    }

    /**
     * Returns the port that clients connect to.
     * @return the proxy's port on the loopback address
     */
    public int port() {
        return this.server.getLocalPort();
    }

    /**
     * Returns {@code 127.0.0.1:port} of the proxy.
     * @return the address clients use
     */
    public String hostAndPort() {
        return "127.0.0.1:" + port();
    }

    /** Drops every byte from now on, both ways, on every connection, keeping them open. */
    public void silence() {
        this.silent = true;
    }

    /** Forwards again: bytes sent while silent stay lost. */
    public void restore() {
        this.silent = false;
    }

    /**
     * Whether the proxy drops every byte now.
     * @return true between {@link #silence()} and {@link #restore()}
     */
    public boolean isSilent() {
        return this.silent;
    }

    private void accept() {
        while (!this.closed) {
            Socket client;
            try {
                client = this.server.accept();
            }
            catch (IOException ex) {
                return; // closed
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(this.targetHost, this.targetPort), 2000);
            }
            catch (IOException ex) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            this.sockets.add(client);
            this.sockets.add(upstream);
            if (this.closed) {
                closeQuietly(client);
                closeQuietly(upstream);
                return;
            }
            pump(client, upstream, "up");
            pump(upstream, client, "down");
        }
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try {
                // Not closed by a try-with-resources: closing a stream closes its socket, which a silent network does not.
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (!this.silent) {
                        out.write(buffer, 0, read);
                        out.flush();
                    }
                }
            }
            catch (IOException ex) {
                // One end closed: close the other, as a network that delivers the close would.
            }
            finally {
                // A silent network delivers no close either.
                if (!this.silent || this.closed) {
                    closeQuietly(from);
                    closeQuietly(to);
                    this.sockets.remove(from);
                    this.sockets.remove(to);
                }
            }
        }, "tcp-proxy-" + port() + "-" + direction);
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops accepting and closes every connection. */
    @Override
    public void close() {
        this.closed = true;
        closeQuietly(this.server);
        for (Socket socket : this.sockets) {
            closeQuietly(socket);
        }
        this.sockets.clear();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception ex) {
            // closing anyway
        }
    }

    @Override
    public String toString() {
        return "TcpProxy[" + hostAndPort() + " -> " + this.targetHost + ":" + this.targetPort + (this.silent ? ", silent" : "") + "]";
    }

}
