package io.github.redislock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A TCP relay on loopback in front of a Redis the suite started, which passes bytes on as they come, or, while
 * {@link #delay(long, long) delaying}, holds each chunk for a random time in a range, each way, in order (as TCP
 * delivers a delayed, jittered stream: late, never reordered). It stands in for {@code tc netem}'s delay where the
 * kernel has no netem; packet loss stays real, dropped by nft in the workers' namespaces ({@link NetworkLab}).
 * <p>
 * Each connection gets a reader and a writer per direction: the reader stamps every chunk with when it may go
 * (never before the chunk ahead of it), the writer sends it then. Closing the relay closes every connection.
 */
final class DelayingRelay implements AutoCloseable {

    private final ServerSocket server;

    private final int target;

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private volatile long minDelayNanos;

    private volatile long maxDelayNanos;

    private volatile boolean closed;

    private DelayingRelay(ServerSocket server, int target) {
        this.server = server;
        this.target = target;
    }

    /** A relay on a free loopback port to the loopback port {@code target}, passing bytes on undelayed. */
    static DelayingRelay start(int target) {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            DelayingRelay relay = new DelayingRelay(server, target);
            daemon("relay-" + server.getLocalPort() + "-accept", relay::accept);
            return relay;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not open a relay to port " + target, ex);
        }
    }

    int port() {
        return this.server.getLocalPort();
    }

    /** Holds each chunk, each way, for a uniformly random time between these bounds; {@code 0, 0} for none. */
    void delay(long minMillis, long maxMillis) {
        this.minDelayNanos = TimeUnit.MILLISECONDS.toNanos(minMillis);
        this.maxDelayNanos = TimeUnit.MILLISECONDS.toNanos(maxMillis);
    }

    @Override
    public void close() {
        this.closed = true;
        closeQuietly(this.server);
        this.sockets.forEach(DelayingRelay::closeQuietly);
    }

    private void accept() {
        while (!this.closed) {
            try {
                Socket client = this.server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), this.target);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                this.sockets.add(client);
                this.sockets.add(upstream);
                pipe(client, upstream, "up");
                pipe(upstream, client, "down");
            }
            catch (IOException ex) {
                if (this.closed) {
                    return;
                }
            }
        }
    }

    /** One direction: a reader that stamps chunks with when they may go, and a writer that sends them then. */
    private void pipe(Socket from, Socket to, String direction) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        String name = "relay-" + port() + "-" + from.getPort() + "-" + direction;
        daemon(name + "-read", () -> {
            byte[] buffer = new byte[16 * 1024];
            long previous = 0;
            try {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    long due = Math.max(previous, System.nanoTime() + nextDelay());
                    previous = due;
                    queue.add(new Chunk(java.util.Arrays.copyOf(buffer, read), due));
                }
            }
            catch (IOException ex) {
                // The socket closed: end the stream below.
            }
            queue.add(new Chunk(null, previous));
        });
        daemon(name + "-write", () -> {
            try {
                while (true) {
                    Chunk chunk = queue.take();
                    long wait = chunk.due() - System.nanoTime();
                    if (wait > 0) {
                        // The delay is the fault itself, not a wait for something to happen.
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    if (chunk.bytes() == null) {
                        to.shutdownOutput();
                        return;
                    }
                    out.write(chunk.bytes());
                    out.flush();
                }
            }
            catch (IOException | InterruptedException ex) {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private long nextDelay() {
        long min = this.minDelayNanos;
        long max = this.maxDelayNanos;
        return (max > min) ? ThreadLocalRandom.current().nextLong(min, max + 1) : min;
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            closeable.close();
        }
        catch (IOException ex) {
            // Closing anyway.
        }
    }

    /** Bytes read and when they may be sent ({@link System#nanoTime()}); no bytes: the stream ended. */
    private record Chunk(byte @Nullable [] bytes, long due) {
    }
}
