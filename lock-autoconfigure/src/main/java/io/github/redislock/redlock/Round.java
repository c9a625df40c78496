package io.github.redislock.redlock;

import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * One call sent to every node at once, and its answers as they come: the caller waits until a majority
 * succeeded, a majority can no longer succeed, or (when it asks for all) every node answered, or its deadline.
 * A node that answers later is still recorded (an acquisition that went through after all, say).
 */
final class Round<T> {

    private final @Nullable Object[] answers;

    /** Which nodes answered (an answer may be null). */
    private final boolean[] done;

    private final Predicate<T> success;

    private final int quorum;

    private int successes;

    private int failures;

    private int errors;

    /** Told of every answer that arrives after {@link #whenAnswered} was called, off the caller's thread. */
    private @Nullable IntConsumer late;

    private Round(int nodes, int quorum, Predicate<T> success) {
        this.answers = new Object[nodes];
        this.done = new boolean[nodes];
        this.quorum = quorum;
        this.success = success;
    }

    /**
     * Sends the call to every node from this thread; each node's answer comes back through the {@link Answer} it
     * was given, on whichever thread received it (see {@link NodeCalls}).
     */
    static <T> Round<T> send(RedlockNode[] nodes, int quorum, Call<T> call, Predicate<T> success) {
        Round<T> round = new Round<>(nodes.length, quorum, success);
        round.sendNow(nodes, null, call);
        return round;
    }

    /**
     * Sends the call to every node, to each only once its call of {@code previous} has ended (answered or failed):
     * what this round writes on a node is applied after what that round wrote there, whichever connection and
     * thread each goes over. A node still busy with the earlier call counts as not answered yet; it is sent the
     * call from the thread that receives that answer, which must not wait (a node full then counts as failed).
     */
    static <T> Round<T> sendAfter(Round<?> previous, RedlockNode[] nodes, int quorum, Call<T> call,
            Predicate<T> success) {
        Round<T> round = new Round<>(nodes.length, quorum, success);
        boolean[] ended = previous.whenAnsweredLater((index) -> round.sendTo(index, nodes[index], call));
        round.sendNow(nodes, ended, call);
        return round;
    }

    /**
     * Sends the call from this thread to the nodes chosen ({@code null}: every node, with no array made per round):
     * first to those with a call slot free, then to those with every slot taken, waiting for each while it ends
     * calls (it is only behind the others) and refusing it once it ended none for the stall time (see
     * {@link CallSlots}).
     */
    private void sendNow(RedlockNode[] nodes, boolean @Nullable [] chosen, Call<T> call) {
        boolean[] full = null;
        for (int i = 0; i < nodes.length; i++) {
            if (chosen != null && !chosen[i]) {
                continue;
            }
            if (nodes[i].slots().take()) {
                start(i, nodes[i], call);
            }
            else {
                full = (full != null) ? full : new boolean[nodes.length];
                full[i] = true;
            }
        }
        if (full != null) {
            sendWhenFree(nodes, full, call, System.nanoTime());
        }
    }

    private void sendWhenFree(RedlockNode[] nodes, boolean[] full, Call<T> call, long since) {
        boolean interrupted = false;
        for (int i = 0; i < nodes.length; i++) {
            if (!full[i]) {
                continue;
            }
            boolean slot;
            try {
                slot = interrupted ? nodes[i].slots().take() : nodes[i].slots().await(since);
            }
            catch (InterruptedException ex) {
                // The caller's wait for the round sees the interrupt; the nodes left go without waiting.
                interrupted = true;
                slot = nodes[i].slots().take();
            }
            if (slot) {
                start(i, nodes[i], call);
            }
            else {
                answered(i, null, nodes[i].slots().refusal());
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends to a node on a reply's thread, which must not wait: a node with every slot taken counts as failed. */
    private void sendTo(int index, RedlockNode node, Call<T> call) {
        if (!node.slots().take()) {
            answered(index, null, node.slots().refusal());
            return;
        }
        start(index, node, call);
    }

    /** Sends to a node whose call slot is taken. */
    private void start(int index, RedlockNode node, Call<T> call) {
        Answer<T> answer = new NodeAnswer(index, node);
        try {
            call.send(node, answer);
        }
        catch (RuntimeException ex) {
            answer.answered(null, ex);
        }
    }

    /** Records the node's answer, its first only; whether it was the first. */
    private boolean answered(int index, @Nullable T answer, @Nullable RuntimeException failure) {
        IntConsumer late;
        synchronized (this) {
            if (this.done[index]) {
                return false;
            }
            this.done[index] = true;
            this.answers[index] = (failure != null) ? failure : answer;
            if (failure == null && this.success.test(answer)) {
                this.successes++;
            }
            else {
                this.failures++;
                if (failure != null) {
                    this.errors++;
                }
            }
            late = this.late;
            if (decided()) {
                // Only now can a waiter go on (it waits for the outcome, or for every answer, which decides too):
                // one wake-up per round rather than one per answer.
                notifyAll();
            }
        }
        if (late != null) {
            late.accept(index);
        }
        return true;
    }

    /**
     * Runs the action for every node that has not answered yet, once it does (after any action given before): an
     * undo that must come after the call on that node, whichever connection each goes over.
     */
    void whenAnswered(IntConsumer action) {
        synchronized (this) {
            IntConsumer before = this.late;
            this.late = (before != null) ? before.andThen(action) : action;
        }
    }

    /**
     * Runs the action for every node that has not answered yet, once it does (after any action given before);
     * which nodes had answered already, for the caller to act on now.
     */
    private boolean[] whenAnsweredLater(IntConsumer action) {
        synchronized (this) {
            boolean[] answered = this.done.clone();
            whenAnswered(action);
            return answered;
        }
    }

    /** Nodes whose call failed with an error (unreachable, timed out). */
    synchronized int errors() {
        return this.errors;
    }

    /**
     * Waits until decided or the deadline ({@link System#nanoTime()}).
     * @param all wait for every node's answer, not just for the outcome
     */
    synchronized void await(long deadline, boolean all) throws InterruptedException {
        while (!(all ? this.successes + this.failures == this.answers.length : decided())) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    private boolean decided() {
        return this.successes >= this.quorum || this.failures > this.answers.length - this.quorum
                || this.successes + this.failures == this.answers.length;
    }

    synchronized int successes() {
        return this.successes;
    }

    /** Nodes that answered without an error, and not with a success. */
    synchronized int refused() {
        return this.failures - this.errors;
    }

    /** Nodes that answered at all (successfully or not, but without an error). */
    synchronized int answered() {
        int answered = 0;
        for (Object answer : this.answers) {
            if (answer != null && !(answer instanceof RuntimeException)) {
                answered++;
            }
        }
        return answered;
    }

    /** The node's answer so far, {@code null} if none or an error. */
    @SuppressWarnings("unchecked")
    synchronized @Nullable T answer(int index) {
        Object answer = this.answers[index];
        return (answer instanceof RuntimeException) ? null : (T) answer;
    }

    /** The first error a node raised, for the message of a failure. */
    synchronized @Nullable RuntimeException firstError() {
        for (Object answer : this.answers) {
            if (answer instanceof RuntimeException ex) {
                return ex;
            }
        }
        return null;
    }

    /**
     * Sends one node its part of a round.
     * @param <T> what the node answers
     */
    @FunctionalInterface
    interface Call<T> {

        /** Sends the call; its answer (or failure) goes to {@code answer}, exactly once, now or later. */
        void send(RedlockNode node, Answer<T> answer);
    }

    /**
     * Where a node's answer goes.
     * @param <T> what the node answers
     */
    @FunctionalInterface
    interface Answer<T> {

        void answered(@Nullable T value, @Nullable RuntimeException failure);

        /** For calls nobody waits for (an undo, a share's entry in a slot that did not count): the lease covers them. */
        static <T> Answer<T> ignored() {
            return (value, failure) -> {
            };
        }
    }

    /** One node's answer to this round: recorded, and the node's call slot given back. */
    private final class NodeAnswer implements Answer<T> {

        private final int index;

        private final RedlockNode node;

        NodeAnswer(int index, RedlockNode node) {
            this.index = index;
            this.node = node;
        }

        @Override
        public void answered(@Nullable T value, @Nullable RuntimeException failure) {
            if (Round.this.answered(this.index, value, failure)) {
                this.node.slots().ended();
            }
        }
    }
}
