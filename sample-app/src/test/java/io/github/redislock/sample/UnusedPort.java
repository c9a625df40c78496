package io.github.redislock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** A loopback port with nothing behind it, to point the app's "is a Redis running here?" probe at. */
public final class UnusedPort {

    private UnusedPort() {
    }

    /** A port that was free a moment ago; the tests never bind it, so it stays closed. */
    public static int find() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
