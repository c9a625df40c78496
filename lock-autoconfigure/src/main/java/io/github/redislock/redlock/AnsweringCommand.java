package io.github.redislock.redlock;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;

import org.jspecify.annotations.Nullable;

/**
 * A Lettuce command for {@link LettuceNodeCalls} that hands its outcome on itself once it is complete (with its reply, an error reply, a
 * timeout or a cancellation), once, on whichever thread completed it: no dependent stage per call. Every way
 * Lettuce completes a command goes through one of the methods overridden here; each checks afterwards.
 * @param <T> what it answers
 */
abstract class AnsweringCommand<T> extends AsyncCommand<byte[], byte[], T> {

    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<AnsweringCommand> ANSWERED = AtomicIntegerFieldUpdater
        .newUpdater(AnsweringCommand.class, "answered");

    private volatile int answered;

    AnsweringCommand(ProtocolKeyword type, CommandOutput<byte[], byte[], T> output, CommandArgs<byte[], byte[]> args) {
        super(new Command<>(type, output, args));
    }

    /** Called once, when this command completed. */
    abstract void answered(@Nullable T value, @Nullable Throwable failure);

    @Override
    protected void completeResult() {
        super.completeResult();
        settled();
    }

    @Override
    public boolean complete(@Nullable T value) {
        boolean completed = super.complete(value);
        settled();
        return completed;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean completed = super.completeExceptionally(ex);
        settled();
        return completed;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        settled();
        return cancelled;
    }

    /** Hands the outcome on, the first time it is there. */
    private void settled() {
        if (!isDone() || !ANSWERED.compareAndSet(this, 0, 1)) {
            return;
        }
        T value;
        try {
            value = getNow(null);
        }
        catch (CancellationException ex) {
            answered(null, new CancellationException("Redlock call cancelled (connection closed or reset)"));
            return;
        }
        catch (CompletionException ex) {
            answered(null, (ex.getCause() != null) ? ex.getCause() : ex);
            return;
        }
        answered(value, null);
    }
}
