package io.github.redislock.modelcheck;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random sequences of actions for two applications: takes (write or read), releases, renewal rounds, forgetting,
 * time, late replies.
 */
public final class Actions {

    static final int APPLICATIONS = 2;

    private Actions() {
    }

    /** Up to 14 steps; waits of 100 ms, about a fixed lease, or past a renewed lease, so that leases run out. */
    public static Arbitrary<List<Action>> sequences() {
        Arbitrary<Integer> app = Arbitraries.integers().between(0, APPLICATIONS - 1);
        Arbitrary<Action> take = Combinators.combine(app, Arbitraries.of(true, false), Arbitraries.of(true, false))
            .as(Action.Take::new);
        Arbitrary<Action> release = app.map(Action.Release::new);
        Arbitrary<Action> renew = app.map(Action.Renew::new);
        Arbitrary<Action> forget = Arbitraries.just(new Action.Forget());
        Arbitrary<Action> wait = Arbitraries.of(100L, 450L, 700L).map(Action.Wait::new);
        Arbitrary<Action> late = Combinators.combine(app, Arbitraries.of(150L, 580L)).as(Action.AnswerLate::new);
        Arbitrary<Action> action = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, take), net.jqwik.api.Tuple.of(4, release), net.jqwik.api.Tuple.of(2, renew),
                net.jqwik.api.Tuple.of(1, forget), net.jqwik.api.Tuple.of(2, wait), net.jqwik.api.Tuple.of(1, late));
        return action.list().ofMinSize(1).ofMaxSize(14);
    }
}
