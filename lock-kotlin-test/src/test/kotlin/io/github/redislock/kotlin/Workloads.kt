package io.github.redislock.kotlin

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext

/**
 * The concurrent workloads the suites run on each store: two applications from one runner, every coroutine
 * released at once. What they did is judged by the caller ([Sections], the store's witness).
 */
internal object Workloads {

    /**
     * Two applications × three dispatchers (the last one [hop]) × three coroutines, five [Stock.reserve] calls each,
     * hopping to another dispatcher inside; returns how many calls were made.
     */
    fun reserveInTwoApplications(runner: ApplicationContextRunner, hop: CoroutineDispatcher): Int =
        callInTwoApplications(runner, hop) { app, other -> app.getBean(Stock::class.java).reserve("42", other) }

    /**
     * Two applications × three dispatchers (the last one [hop]) × three coroutines, each making five [call]s with its
     * application and a dispatcher to hop to inside (not its own); returns how many calls were made.
     */
    fun callInTwoApplications(runner: ApplicationContextRunner, hop: CoroutineDispatcher,
            call: suspend (ApplicationContext, CoroutineDispatcher) -> Unit): Int {
        var calls = 0
        runner.run { first ->
            runner.run { second ->
                runBlocking {
                    val start = CompletableDeferred<Unit>()
                    for (app in listOf<ApplicationContext>(first, second)) {
                        for (dispatcher in listOf(Dispatchers.Default, Dispatchers.IO, hop)) {
                            repeat(3) {
                                calls += 5
                                launch(dispatcher) {
                                    start.await()
                                    repeat(5) { call(app, if (dispatcher == hop) Dispatchers.Default else hop) }
                                }
                            }
                        }
                    }
                    start.complete(Unit)
                }
            }
        }
        return calls
    }

    /**
     * Two applications × two dispatchers × three coroutines, each collecting its application's [Feed.updates] once
     * (the same Flow collected by several coroutines at once: one lock per collection); returns the collections.
     */
    fun collectInTwoApplications(runner: ApplicationContextRunner): Int {
        var collections = 0
        runner.run { first ->
            runner.run { second ->
                runBlocking {
                    val start = CompletableDeferred<Unit>()
                    for (app in listOf<ApplicationContext>(first, second)) {
                        val updates = app.getBean(Feed::class.java).updates("1")
                        for (dispatcher in listOf(Dispatchers.Default, Dispatchers.IO)) {
                            repeat(3) {
                                collections++
                                launch(dispatcher) {
                                    start.await()
                                    assertThat(updates.toList()).containsExactly(0, 1, 2)
                                }
                            }
                        }
                    }
                    start.complete(Unit)
                }
            }
        }
        return collections
    }
}
