package io.github.redislock.testsupport;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately tiny RESP2 client over a plain socket, so the harness can probe and inspect a server
 * (readiness, {@code INFO}, {@code DEBUG}, {@code CLIENT KILL}) without depending on the client library
 * under test. Replies map to: simple string and bulk string → {@link String} (nil → {@code null}),
 * integer → {@link Long}, array → {@link List}; an error reply throws {@link RedisErrorReply}.
 */
public final class RespConnection implements AutoCloseable {

    private final Socket socket;

    private final InputStream in;

    private final OutputStream out;

    private RespConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream());
    }

    /** Connects with the given connect and read timeout. */
    public static RespConnection open(String host, int port, Duration timeout) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            return new RespConnection(socket);
        }
        catch (IOException ex) {
            try {
                socket.close();
            }
            catch (IOException suppressed) {
                ex.addSuppressed(suppressed);
            }
            throw new UncheckedIOException("Could not connect to " + host + ":" + port, ex);
        }
    }

    /** Sends one command and reads its reply. */
    public Object command(String... arguments) {
        try {
            this.out.write(('*' + Integer.toString(arguments.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String argument : arguments) {
                byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
                this.out.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                this.out.write(bytes);
                this.out.write('\r');
                this.out.write('\n');
            }
            this.out.flush();
            return readReply();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Redis command " + arguments[0] + " failed", ex);
        }
    }

    private Object readReply() throws IOException {
        int type = this.in.read();
        if (type < 0) {
            throw new IOException("Connection closed by server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new RedisErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] data = this.in.readNBytes(length + 2);
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(readReply());
                }
                return items;
            }
            default:
                throw new IOException("Unexpected RESP type '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int current = this.in.read();
            if (current < 0) {
                throw new IOException("Connection closed mid-reply");
            }
            if (previous == '\r' && current == '\n') {
                byte[] bytes = buffer.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            buffer.write(current);
            previous = current;
        }
    }

    @Override
    public void close() {
        try {
            this.socket.close();
        }
        catch (IOException ex) {
            // Closing a probe connection cannot lose anything.
        }
    }

    /** An error reply ({@code -ERR ...}) from the server. */
    public static final class RedisErrorReply extends RuntimeException {

        private static final long serialVersionUID = 1L;

        public RedisErrorReply(String message) {
            super(message);
        }
    }
}
