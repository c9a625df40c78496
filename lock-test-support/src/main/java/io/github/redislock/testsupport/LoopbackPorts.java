package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ThreadLocalRandom;

/** Ports on the loopback address {@value #HOST}: free ones for new servers, and whether one is listened on. */
final class LoopbackPorts {

    /** The only address the harness ever uses. */
    static final String HOST = "127.0.0.1";

    private LoopbackPorts() {
    }

    /** A loopback port that was free a moment ago. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A free loopback port for a cluster node: at most 55535, since the node also listens on the port 10000
     * higher for the cluster bus, which must be free too.
     */
    static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20000 + ThreadLocalRandom.current().nextInt(55535 - 20000 + 1);
            if (isBindable(port) && isBindable(port + 10000)) {
                return port;
            }
        }
        throw new IllegalStateException("No free loopback port pair (p, p + 10000) for a cluster node");
    }

    private static boolean isBindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    /** True when something accepts connections on the given loopback port. */
    static boolean isListening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }
}
