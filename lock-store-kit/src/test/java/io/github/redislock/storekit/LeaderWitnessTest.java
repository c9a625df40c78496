package io.github.redislock.storekit;

import java.util.Set;

import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;

import static org.assertj.core.api.Assertions.assertThat;

/** The leader witness's judge, on samples recorded by hand (microseconds of its clock). */
@LineIndependent
class LeaderWitnessTest {

    private final LeaderWitness witness = new LeaderWitness();

    @Test
    void termsThatSurelyLedAtOnceAreABreach() {
        this.witness.record("a", 0, 1, 1);
        this.witness.record("a", 10, 11, 1);
        this.witness.record("b", 5, 6, 2);
        this.witness.record("b", 20, 21, 2);
        assertThat(this.witness.breaches()).singleElement().asString().startsWith("the term 2 of b").contains("began while the term 1 of a");
    }

    @Test
    void aSampleStretchedByAPauseProvesNoOverlap() {
        this.witness.record("a", 0, 1, 1);
        this.witness.record("a", 2, 100, 1);
        this.witness.record("b", 50, 51, 2);
        this.witness.record("b", 60, 61, 2);
        assertThat(this.witness.breaches()).isEmpty();
        assertThat(this.witness.terms()).containsExactly(1L, 2L);
    }

    @Test
    void aLaterTermNotLargerIsABreach() {
        this.witness.record("a", 0, 1, 5);
        this.witness.record("a", 2, 3, 5);
        this.witness.record("b", 10, 11, 4);
        assertThat(this.witness.breaches()).singleElement().asString().contains("with a term not larger");
    }

    @Test
    void anExcusedTermIsNotJudged() {
        this.witness.record("a", 0, 1, 1);
        this.witness.record("a", 10, 11, 1);
        this.witness.record("b", 5, 6, 2);
        this.witness.record("b", 20, 21, 2);
        assertThat(this.witness.breaches(Set.of(1L))).isEmpty();
    }
}
