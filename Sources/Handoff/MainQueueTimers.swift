import Dispatch
import Synchronization
import CTimerfd
#if canImport(Glibc)
import Glibc
#endif

/// The main actor's timers on the system clock, kept by one thread of their own that sleeps on a
/// `timerfd` set to the earliest deadline. Setting a timer is a system call made where it is set,
/// with no thread woken; one that comes due wakes this thread alone, which runs it with every
/// other timer due by then in one `DispatchQueue.main.sync` (on this thread when the main queue
/// is free, as the terminal's input thread runs a key).
///
/// A timer set again for later moves the timerfd with it when it was the earliest: each key into
/// a large buffer moves the typing pause's deadline 300 ms on, and a timerfd left at the old
/// deadline woke this thread, and then the main queue, about every 300 ms of typing for nothing.
///
/// A main-queue `asyncAfter` cost more on Linux: each one set wakes dispatch's timer thread to
/// re-arm its own timer, and each that fires wakes it again and then a worker for the main queue.
/// An editor sets several a second while keys arrive (the bus's next datagram, the upkeep).
package final class MainQueueTimers: Sendable {
    package static let shared = MainQueueTimers()

    private struct Entry {
        var key: UInt64
        var deadline: ContinuousClock.Instant
        var body: @MainActor @Sendable () -> Void
    }

    private struct State {
        /// The timers set, in the order set (a few: one per runner, and the one-shots).
        var entries: [Entry] = []
        var nextKey: UInt64 = 0
        /// The deadline the timerfd is set for, while it is set.
        var armed: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// The timerfd (`CLOCK_MONOTONIC`, set by relative waits), or -1 when none could be made:
    /// then timers are the main queue's `asyncAfter`.
    private let descriptor: Int32

    /// A set of timers with a timerfd and a thread of its own: `shared`, or a test's, which lives
    /// as long as the process (its thread holds it).
    package init() {
        descriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC))
        guard descriptor >= 0 else { return }
        var thread = pthread_t()
        let held = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, { argument in
            Unmanaged<MainQueueTimers>.fromOpaque(argument!).takeUnretainedValue().serve()
            return nil
        }, held)
        if started == 0 { pthread_detach(thread) } else { Unmanaged<MainQueueTimers>.fromOpaque(held).release() }
    }

    /// The deadline the timerfd is set for, nil while it is not set (for tests).
    package var armedDeadline: ContinuousClock.Instant? { state.withLock { $0.armed } }

    /// A new key for `set`, never given out before.
    package func makeKey() -> UInt64 {
        state.withLock { state in
            state.nextKey += 1
            return state.nextKey
        }
    }

    /// Runs `body` on the main actor once `deadline` is reached, in place of what timer `key` was
    /// set to run.
    package func set(_ key: UInt64, at deadline: ContinuousClock.Instant, _ body: @escaping @MainActor @Sendable () -> Void) {
        guard descriptor >= 0 else {
            let wait = max(.zero, deadline - .now)
            DispatchQueue.main.asyncAfter(deadline: .now() + wait.seconds) { MainActor.assumeIsolated { body() } }
            return
        }
        state.withLock { state in
            let moved = state.entries.firstIndex { $0.key == key }.map { state.entries.remove(at: $0).deadline }
            state.entries.append(Entry(key: key, deadline: deadline, body: body))
            if let armed = state.armed, armed <= deadline {
                // Set for later: the timerfd follows it when this timer was the one it waited for.
                guard moved == armed else { return }
                let earliest = state.entries.lazy.map(\.deadline).min()!
                guard earliest != armed else { return }
                state.armed = earliest
                arm(for: earliest)
                return
            }
            state.armed = deadline
            arm(for: deadline)
        }
    }

    /// Timer `key` runs nothing. The timerfd stays set: waking once for nothing is cheaper than a
    /// system call for each cancel.
    package func cancel(_ key: UInt64) {
        state.withLock { $0.entries.removeAll { $0.key == key } }
    }

    /// Sets the timerfd to expire at `deadline`, at once when that has passed. Lock held.
    private func arm(for deadline: ContinuousClock.Instant) {
        let wait = max(deadline - .now, .nanoseconds(1)).components
        var setting = itimerspec()
        setting.it_value.tv_sec = Int(wait.seconds)
        setting.it_value.tv_nsec = Int(wait.attoseconds / 1_000_000_000)
        timerfd_settime(descriptor, 0, &setting, nil)
    }

    /// The thread: waits for the timerfd, takes what is due, runs it on the main queue.
    private func serve() {
        while true {
            var expirations: UInt64 = 0
            let count = read(descriptor, &expirations, MemoryLayout<UInt64>.size)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            let due = takeDue()
            guard !due.isEmpty else { continue }
            DispatchQueue.main.sync {
                MainActor.assumeIsolated {
                    for body in due { body() }
                }
            }
        }
    }

    /// Removes the timers due by now, in deadline order (the order set, at one deadline), and
    /// sets the timerfd for the next.
    private func takeDue() -> [@MainActor @Sendable () -> Void] {
        state.withLock { state in
            let now = ContinuousClock.now
            var due: [Entry] = []
            var next: ContinuousClock.Instant?
            for entry in state.entries {
                if entry.deadline <= now {
                    let place = due.firstIndex { $0.deadline > entry.deadline } ?? due.count
                    due.insert(entry, at: place)
                } else if next == nil || entry.deadline < next! {
                    next = entry.deadline
                }
            }
            if !due.isEmpty { state.entries.removeAll { $0.deadline <= now } }
            state.armed = next
            if let next { arm(for: next) }
            return due.map { $0.body }
        }
    }
}
