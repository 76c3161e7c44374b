import Dispatch

/// One timer on the main actor for an engine's next deadline (`HandoffCore`'s shape: the engine
/// says when it wants `tick`, its runner keeps one timer), on a `HandoffClock`.
///
/// A timer that fires no later than a new deadline stays: on firing it finds what is due, and
/// its owner sets the next. On the system clock it is one timer of `MainQueueTimers`, set again
/// in place (a busy LAN or a run of keys sets several a second, and none wakes a thread), and one
/// already due when set goes behind the work in hand on the main queue; on another clock (a
/// test's), one set for a later time, or stopped, fires for nothing through the clock's
/// `onMainActor(at:)`.
///
/// One made with `movesLater` follows a later deadline too, on the system clock: the editor's
/// upkeep, whose typing pause moves 300 ms on with every key into a large buffer, and whose timer
/// left at the old deadline woke a thread and the main queue for nothing about every 300 ms of
/// typing. Moving costs a set of `MainQueueTimers` (a lock, and a `timerfd_settime` when it was
/// the earliest) each time: the other runners keep the rule above, as their deadlines can move
/// with each datagram heard, many times between two wake-ups for nothing.
@MainActor
package final class DeadlineTimer {
    private let clock: any HandoffClock
    private let fire: @MainActor () -> Void
    /// The key of its timer in `MainQueueTimers`, on the system clock.
    private let key: UInt64?
    /// When it fires next, while it is set.
    package private(set) var deadline: ContinuousClock.Instant?
    /// Counts the timers set: one whose number is not the newest fires for nothing.
    private var generation = 0

    /// Whether a later deadline moves the timer (on the system clock).
    private let movesLater: Bool

    /// A timer on `clock` that calls `fire` (which should hold its owner weakly); `movesLater`:
    /// see above.
    package init(clock: any HandoffClock, movesLater: Bool = false, fire: @escaping @MainActor () -> Void) {
        self.clock = clock
        self.fire = fire
        key = clock is SystemClock ? MainQueueTimers.shared.makeKey() : nil
        self.movesLater = movesLater && key != nil
    }

    deinit {
        if let key { MainQueueTimers.shared.cancel(key) }
    }

    /// Fires at `next` unless it fires no later already (and does not move later); nil stops it.
    package func schedule(_ next: ContinuousClock.Instant?) {
        guard let next else { return stop() }
        if let deadline, deadline == next || (!movesLater && deadline < next) { return }
        generation += 1
        let number = generation
        deadline = next
        let body: @MainActor @Sendable () -> Void = { [weak self] in
            guard let self, self.generation == number else { return }
            self.deadline = nil
            self.fire()
        }
        if let key, next <= clock.now {
            // Due already (a save asked for once the current work is done): behind that work on
            // the main queue. A timerfd set to expire at once woke its thread, whose main.sync
            // then waited for the work in hand and was woken again.
            MainQueueTimers.shared.cancel(key)
            DispatchQueue.main.async { MainActor.assumeIsolated { body() } }
        } else if let key {
            MainQueueTimers.shared.set(key, at: next, body)
        } else {
            clock.onMainActor(at: next, body)
        }
    }

    /// Nothing fires until it is scheduled again.
    package func stop() {
        generation += 1
        deadline = nil
        if let key { MainQueueTimers.shared.cancel(key) }
    }
}
