import FoundationEssentials
import Logging
import HandoffWire

/// What every message kind shares, on the main actor: the transport, the sequence, sealing
/// (`DatagramCodec`, signed by this device), the `ReceiveGate` on the receiving side, the
/// statistics, the state stream and its shelf, and one timer for every service's deadline.
/// Services (`BusService`) register the kinds they own; each accepted datagram goes to the
/// service of its kind, and each message a service sends is numbered when it is written, so
/// datagrams leave in sequence order whoever sends them (docs/PROTOCOL.md section 2).
///
/// Receiving starts on the transport's thread: the gate applies the receiving rules and
/// queues what passes; the bus takes the queue in one go on the main actor, at once when
/// something changed and lazily for plain repeats (`WakePolicy`), and hands it out by kind.
@MainActor
final class DatagramBus {
    /// What the bus tells its owner: what the transport said, and addresses worth telling a person.
    enum Report: Sendable {
        case sendFailed(TransportError)
        case transportChanged(TransportStatus)
        case otherKeyHeard(sources: [String])
        case oldProtocolHeard(sources: [String])
    }

    let membership: Membership
    let transport: any ActivityTransport
    let clock: any HandoffClock
    let senderID: SenderID
    let allowedClockSkew: TimeInterval
    /// The state stream for states too large for a datagram; nil runs without it.
    let stateStream: StateStreamSetup?
    let logger: Logger
    let gate: ReceiveGate
    /// Told what the transport said and whom the gate noted.
    var report: (@MainActor (Report) -> Void)?

    /// The last sequence written; the next datagram carries one more.
    private(set) var sequence: UInt64 = 0
    /// What was received, as taken in so far (`gate.pendingStatistics` holds the rest).
    private(set) var statistics = ReceiveStatistics()
    private(set) var isStarted = false
    private(set) var isShutDown = false
    /// The services, in the order they registered (and are ticked), weakly: their owners keep them.
    private var services: [WeakService] = []
    private var owners: [DatagramKind: Int] = [:]
    private lazy var timer = DeadlineTimer(clock: clock) { [weak self] in self?.fire() }
    /// When the timer fires next, while one is set.
    var timerDeadline: ContinuousClock.Instant? { timer.deadline }
    /// When queued plain repeats are to be taken in, when some are waiting.
    private var absorbDue: ContinuousClock.Instant?

    init(
        membership: Membership, transport: any ActivityTransport, clock: any HandoffClock, senderID: SenderID,
        allowedClockSkew: TimeInterval, limits: PeerDirectory.Limits, newsFrame: Duration,
        stateStream: StateStreamSetup?, logger: Logger
    ) {
        self.membership = membership
        self.transport = transport
        self.clock = clock
        self.senderID = senderID
        self.allowedClockSkew = allowedClockSkew
        self.stateStream = stateStream
        self.logger = logger
        gate = ReceiveGate(
            membership: membership, allowedClockSkew: allowedClockSkew, ownSender: senderID, limits: limits,
            newsFrame: newsFrame.seconds)
    }

    /// Adds a service, which then gets the datagrams of its kinds. A kind has one owner.
    func register(_ service: any BusService) {
        let index = services.count
        for kind in service.kinds {
            precondition(owners[kind] == nil, "\(kind) already has a service")
            owners[kind] = index
        }
        services.append(WeakService(value: service))
    }

    /// Datagrams the bus numbered and handed to the transport.
    var sentCount: Int { Int(sequence) }

    var isRunning: Bool { !isShutDown }

    // MARK: Life

    /// Starts receiving, then tells the services, in the order they registered.
    func start() {
        guard !isStarted, !isShutDown else { return }
        isStarted = true
        let gate = gate
        let clock = clock
        transport.start(
            TransportHandler(
                deliver: { [weak self] datagram in
                    // The gate's times are dates, which datagrams' `sentAt` are checked against;
                    // the frame's end it may ask for becomes an instant as the clock stood then.
                    let reading = clock.reading
                    let offered = gate.check(datagram, now: reading.date)
                    switch offered.wake {
                    case .now: Task { @MainActor [weak self] in self?.absorb() }
                    case .soon: Task { @MainActor [weak self] in self?.absorbSoon() }
                    case .at(let deadline):
                        clock.onMainActor(at: reading.instant(at: deadline)) { [weak self] in self?.absorb() }
                    case nil: break
                    }
                    return offered.accepted ? .accepted : .notAccepted
                },
                sendFailed: { [weak self] error in
                    Task { @MainActor [weak self] in self?.report?(.sendFailed(error)) }
                },
                statusChanged: { [weak self] status in
                    Task { @MainActor [weak self] in self?.report?(.transportChanged(status)) }
                }))
        let now = clock.reading
        for service in services { service.value?.busStarted(now: now) }
        reschedule()
    }

    /// Stops the timer and closes the transport; nothing is sent after this.
    func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        timer.stop()
        await transport.close()
    }

    // MARK: Sending

    /// Numbers, signs, seals and writes `message`, stamped `at`; false when the bus is shut
    /// down or it could not be encoded. With `previousKeyToo`, it goes out under the previous
    /// group key as well, with the same sequence (each key gives its own sender key): a DEVICES
    /// datagram reaches a peer that missed the last key change this way.
    @discardableResult
    func send(_ message: HandoffMessage, at: Date, previousKeyToo: Bool = false) -> Bool {
        guard !isShutDown else { return false }
        sequence += 1
        let codec = membership.codec(allowedClockSkew: allowedClockSkew)
        var keys = [codec.keys.current]
        if previousKeyToo, let previous = codec.keys.previous { keys.append(previous) }
        do {
            for key in keys {
                transport.send(
                    try codec.encode(
                        message, identity: membership.identity, senderID: senderID, sequence: sequence, sentAt: at,
                        under: key))
            }
            return true
        } catch {
            logger.error("cannot encode \(message.kind): \(error)")
            return false
        }
    }

    // MARK: Receiving

    /// Applies every receiving rule to one datagram and takes it in at once, here.
    func receive(_ datagram: ReceivedDatagram, now: Date) {
        _ = gate.offer(datagram, now: now)
        absorb()
    }

    /// Takes everything the gate has queued and hands each service what is its.
    func absorb() {
        absorbDue = nil
        let now = clock.reading
        let batch = gate.take(now: now.date)
        guard !batch.isEmpty else { return }
        statistics.add(batch.statistics)
        if !batch.otherKeySources.isEmpty { report?(.otherKeyHeard(sources: batch.otherKeySources)) }
        if !batch.oldProtocolSources.isEmpty { report?(.oldProtocolHeard(sources: batch.oldProtocolSources)) }
        var deliveries = [BusDelivery](repeating: BusDelivery(), count: services.count)
        if !batch.refreshes.isEmpty, let owner = owners[.announce] {
            deliveries[owner].refreshes = batch.refreshes.values.sorted { $0.at < $1.at }
        }
        for arrival in batch.arrivals {
            guard let owner = owners[arrival.message.kind] else { continue }
            deliveries[owner].arrivals.append(arrival)
        }
        for (index, delivery) in deliveries.enumerated() where !delivery.isEmpty {
            services[index].value?.receive(delivery, now: now)
        }
        reschedule()
    }

    /// Plain repeats are queued: take them in within `ReceiveGate.lazyDelay`.
    private func absorbSoon() {
        guard absorbDue == nil, !isShutDown else { return }
        absorbDue = clock.now.advanced(by: ReceiveGate.lazyDelay)
        reschedule()
    }

    // MARK: The timer

    /// Keeps one timer for the earliest of the services' deadlines and the lazy intake.
    func reschedule() {
        guard !isShutDown else { return }
        var next = absorbDue
        for service in services {
            if let due = service.value?.nextDeadline, next.map({ due < $0 }) ?? true { next = due }
        }
        timer.schedule(next)
    }

    /// The timer fired: take in what arrived (repeats still queued may keep an activity
    /// alive), then let each service do what is due.
    func fire() {
        guard !isShutDown else { return }
        let now = clock.reading
        if let due = absorbDue, due <= now.instant { absorb() }
        for service in services { service.value?.tick(now: now) }
        reschedule()
    }
}

/// A service held weakly: the bus's owner keeps its services.
@MainActor
private struct WeakService {
    weak var value: (any BusService)?
}
