import FoundationEssentials
import HandoffWire

/// The center as the activities' service on the bus: the kinds `HandoffCore` owns, its
/// deadline, and what the bus hands it.
extension ActivityCenter: BusService {
    var kinds: Set<DatagramKind> { [.announce, .withdraw, .query, .offer, .continued] }

    func busStarted(now: ClockReading) {
        core.start(now: now)
    }

    var nextDeadline: ContinuousClock.Instant? { core.nextDeadline }

    func receive(_ delivery: BusDelivery, now: ClockReading) {
        perform(core.receive(delivery, now: now))
    }

    func tick(now: ClockReading) {
        perform(core.tick(now: now))
    }

    /// Keeps the bus's one timer for the earliest of every service's deadline, the core's
    /// among them, and the lazy intake.
    func reschedule() {
        bus.reschedule()
    }
}
