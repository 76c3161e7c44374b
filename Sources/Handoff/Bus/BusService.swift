import FoundationEssentials
import HandoffWire

/// One part of the protocol on the `DatagramBus`: it owns some message kinds, gets the
/// accepted datagrams of those kinds and no others, and sends through the bus, which numbers,
/// signs and seals what it sends as every datagram is. Its rules live in an engine without
/// I/O (time in, actions out, `nextDeadline`, an instant of the bus's clock); the service is that engine's runner, on the
/// main actor. A new message kind is a new service: it registers with the bus, and the
/// services already there do not change.
@MainActor
protocol BusService: AnyObject {
    /// The message kinds this service owns; no two services on a bus own one kind.
    var kinds: Set<DatagramKind> { get }
    /// The bus started: its transport receives, and sends may go out.
    func busStarted(now: ClockReading)
    /// Accepted datagrams of this service's kinds, taken in at `now`.
    func receive(_ delivery: BusDelivery, now: ClockReading)
    /// When the service next wants `tick`; nil when nothing is waiting.
    var nextDeadline: ContinuousClock.Instant? { get }
    /// Carries out what is due at `now`.
    func tick(now: ClockReading)
}

/// What the bus hands a service from one intake.
struct BusDelivery: Sendable {
    /// Accepted datagrams that may change something, in arrival order.
    var arrivals: [ReceiveGate.Arrival] = []
    /// Plain repeats of what was handed on before (activities only: the newest repeat of
    /// each), oldest first; they only say when their activity was last heard.
    var refreshes: [ReceiveGate.Arrival] = []

    var isEmpty: Bool { arrivals.isEmpty && refreshes.isEmpty }
}
