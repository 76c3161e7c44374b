import FoundationEssentials
import Dispatch

/// Baton's one clock, on Swift's `Clock`: monotonic instants for every deadline and wait, and
/// the wall-clock `date` only for times that travel or are shown (`savedAt`, `sentAt`, a store
/// version's time, an age in the nearby list).
///
/// The engines (`HandoffCore` and the others in its shape) read no clock: the time is one of
/// their inputs. Only their runners read one, through this. Production uses `SystemClock`;
/// tests use `ManualClock` from `HandoffTesting`, which moves only when told, so minutes of
/// protocol time pass in milliseconds.
public protocol HandoffClock: Clock, Sendable where Instant == ContinuousClock.Instant, Duration == Swift.Duration {
    /// The wall-clock time now.
    var date: Date { get }
    /// Both readings, taken together: what the engines that keep deadlines and stamp dates
    /// (`HandoffCore`) take as their time.
    var reading: ClockReading { get }
    /// Runs `body` on the main actor once `now` has reached `deadline`. Unlike a task that
    /// sleeps, it may arm a timer without waking the main actor first: the receiving side asks
    /// for it from a network thread, once a frame.
    func onMainActor(at deadline: Instant, _ body: @escaping @MainActor @Sendable () -> Void)
}

extension HandoffClock {
    /// Returns once `now` has reached `deadline` (at once when it already has); throws
    /// `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant) async throws {
        try await sleep(until: deadline, tolerance: nil)
    }

    /// A task on the main actor that sleeps until `deadline`.
    public func onMainActor(at deadline: Instant, _ body: @escaping @MainActor @Sendable () -> Void) {
        Task { @MainActor in
            try? await sleep(until: deadline, tolerance: nil)
            body()
        }
    }

    /// The two readings one after the other.
    public var reading: ClockReading { ClockReading(instant: now, date: date) }
}

/// A clock's two readings at one moment: the monotonic `instant`, which every deadline is
/// counted on (a wall clock set back or forward moves no timer), and the wall-clock `date`, for
/// the times that travel (a datagram's `sentAt`, a record's `savedAt`) or are shown. Ordered by
/// the instant.
public struct ClockReading: Comparable, Sendable {
    public var instant: ContinuousClock.Instant
    public var date: Date

    public init(instant: ContinuousClock.Instant, date: Date) {
        self.instant = instant
        self.date = date
    }

    /// The reading `duration` later: both move by it.
    public func advanced(by duration: Duration) -> ClockReading {
        ClockReading(instant: instant.advanced(by: duration), date: date.addingTimeInterval(duration.seconds))
    }

    /// The reading at `instant`, the date moved as far as the instant.
    public func at(_ instant: ContinuousClock.Instant) -> ClockReading {
        advanced(by: instant - self.instant)
    }

    /// The instant at which the wall clock, as it stood at this reading, shows `date`: for a
    /// date kept to be shown (when a nearby activity was last heard) that also says when
    /// something falls due.
    public func instant(at date: Date) -> ContinuousClock.Instant {
        instant.advanced(by: .microseconds(Int64((date.timeIntervalSince(self.date) * 1e6).rounded())))
    }

    public static func < (a: ClockReading, b: ClockReading) -> Bool { a.instant < b.instant }
    public static func == (a: ClockReading, b: ClockReading) -> Bool { a.instant == b.instant && a.date == b.date }
}

/// The machine's clock: `ContinuousClock` for instants, `Date()` for the date.
public struct SystemClock: HandoffClock {
    public init() {}

    public var now: ContinuousClock.Instant { .now }
    public var date: Date { Date() }
    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
    }

    /// A timer of `MainQueueTimers`, run on the main queue, which is the main actor's: nothing
    /// runs before it fires.
    public func onMainActor(at deadline: ContinuousClock.Instant, _ body: @escaping @MainActor @Sendable () -> Void) {
        let timers = MainQueueTimers.shared
        timers.set(timers.makeKey(), at: deadline, body)
    }
}
