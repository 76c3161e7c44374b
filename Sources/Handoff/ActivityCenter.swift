import Foundation
import Logging
import HandoffWire

/// Publishes the current activity to peers and keeps the directory of what is nearby.
///
/// The rules live in `HandoffCore`, which never reads a clock or touches the network; the
/// center is the runner that carries out what the core asks, on the main actor: it runs the
/// three save hooks, seals and hands datagrams to the transport, keeps one timer on the
/// injected `HandoffClock` for the core's next deadline, and tells listeners what happened.
///
/// Receiving starts on the transport's thread: a `ReceiveGate` applies the receiving rules
/// that need no main actor (decoding, replay) and queues what passes; the center takes the
/// queue in batches, at once when something changed and lazily for plain repeats.
@MainActor
public final class ActivityCenter {
    /// What a UI wants to hear about.
    public enum Event: Sendable, Equatable {
        /// The nearby list changed (an activity came, changed or went).
        case nearbyChanged
        /// A save published this record (or kept it local, when not eligible for handoff).
        case published(ActivityRecord)
        /// A save was refused; the previous published state stays.
        case saveFailed(activityType: String, error: HandoffError)
        /// One of our activities was continued by a peer.
        case continued(activityID: String, by: PeerInfo)
        /// The transport could not send.
        case sendFailed(TransportError)
        /// One of the transport's paths came up or went down (multicast, a relay).
        case transportChanged(TransportStatus)
        /// Datagrams that did not open under the group key — sealed with another key, or
        /// altered on the way — came from these addresses (without port), heard for the first
        /// time. Each address is told once, and `otherKeySources` keeps at most a few in all, so
        /// a flood of such datagrams cannot flood the listeners.
        case otherKeyHeard(sources: [String])
        /// Datagrams of protocol version 1 or 2 came from these addresses (without port), heard for
        /// the first time: Baton there needs updating. Told once per address, at most a few in all.
        case oldProtocolHeard(sources: [String])
        /// Statements heard changed the list of devices, or gave this device a new group key: the
        /// program stores the change (`membership` holds the new picture).
        case membershipChanged(Membership.Change)
    }

    public let registry: ActivityTypeRegistry
    public let configuration: Configuration
    public let transport: any ActivityTransport
    public let clock: any HandoffClock
    /// The state stream for records too large for a datagram; nil runs without it (such
    /// records then cannot be published or fetched).
    public let stateStream: StateStreamSetup?
    public weak var applicationDelegate: (any ApplicationDelegate)?

    public internal(set) var currentActivity: UserActivity?
    /// What is nearby, as taken in so far (plain repeats are taken in within 250 ms).
    public var directory: PeerDirectory { core.directory }
    /// What was received, as counted so far: what the core took in, and what the receiving side
    /// counted since (refusals ask for no wake-up, so a peer that hears nothing but devices it does
    /// not list still shows them).
    public var statistics: ReceiveStatistics {
        var statistics = core.statistics
        statistics.add(gate.pendingStatistics)
        return statistics
    }
    /// The addresses (without port) that datagrams under another group key came from, first
    /// heard first, at most 8: a machine that holds another key is there. Read at once from the
    /// receiving side, whether or not the main actor has taken in what arrived.
    public var otherKeySources: [String] { gate.otherKeySources }
    /// The addresses (without port) that version 1 or 2 datagrams came from, first heard first,
    /// at most 8. Read at once from the receiving side.
    public var oldProtocolSources: [String] { gate.oldProtocolSources }
    /// This device's identity, group keys and list of devices.
    public let membership: Membership
    /// The sender id this peer sends with: its device's tag and the instance of
    /// `configuration.senderID` (whose own tag is replaced when it names another device).
    public let senderID: SenderID
    /// The record last published for the current activity.
    public var lastPublished: ActivityRecord? { core.lastPublished }
    /// Datagrams handed to the transport.
    public var sentCount: Int { core.sentCount }
    /// Saves run (hooks called), whether or not they published.
    public internal(set) var saveCount = 0
    /// Tests only: awaited on the detached task before a large state is encoded, to hold an
    /// encoding in flight while the main actor goes on.
    var beforeEncoding: (@Sendable (ActivityRecord) async -> Void)?
    /// Encodings made off the main actor and handed back to it, whether or not they went out.
    var encodingsHandedBack = 0

    var core: HandoffCore
    let logger: Logger
    private let gate: ReceiveGate
    private var isStarted = false
    private(set) var isShutDown = false
    var timer: Task<Void, Never>?
    var timerDeadline: Date?
    var timerGeneration = 0
    /// When queued plain repeats are to be taken in, when some are waiting.
    var absorbDue: Date?
    private var subscribers: [UUID: AsyncStream<Event>.Continuation] = [:]
    private var finding: [HandoffCore.FindID: CheckedContinuation<NearbyActivity?, Never>] = [:]
    private var nextFindID: HandoffCore.FindID = 0
    /// Our recent activities by id, so a CONTINUED for one that is no longer current still reaches its delegate.
    private var recentActivities: [(id: String, activity: WeakActivity)] = []
    /// The core's actions not carried out yet, in the order it returned them (see `perform`).
    private var pendingActions: [HandoffCore.Action] = []
    private var isPerforming = false

    /// - Parameters:
    ///   - clock: where time comes from; tests pass a `ManualClock`.
    ///   - stateStream: the shelf, port and dialer of the state stream, for large records.
    ///   - logger: where the center says what it did and what failed; nothing by default.
    public init(
        registry: ActivityTypeRegistry, membership: Membership, transport: any ActivityTransport,
        configuration: Configuration, clock: any HandoffClock = SystemClock(), stateStream: StateStreamSetup? = nil,
        logger: Logger = Logger(label: "handoff", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.registry = registry
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.membership = membership
        self.stateStream = stateStream
        let tag = DeviceTag(membership.identity.publicIdentity.deviceID)
        let senderID =
            configuration.senderID.tag == tag
            ? configuration.senderID : SenderID(tag: tag, instance: configuration.senderID.instance)!
        self.senderID = senderID
        gate = ReceiveGate(
            membership: membership, allowedClockSkew: configuration.allowedClockSkew, ownSender: senderID,
            limits: configuration.directoryLimits, newsFrame: configuration.newsFrame.seconds)
        core = HandoffCore(configuration: configuration, registry: registry)
        core.streamPort = stateStream?.port
    }

    // MARK: Life

    /// Starts receiving and repeating the current activity.
    public func start() {
        guard !isStarted, !isShutDown else { return }
        isStarted = true
        let gate = gate
        let clock = clock
        transport.start(
            TransportHandler(
                deliver: { [weak self] datagram in
                    let offered = gate.check(datagram, now: clock.date)
                    switch offered.wake {
                    case .now: Task { @MainActor [weak self] in self?.absorbReceived() }
                    case .soon: Task { @MainActor [weak self] in self?.absorbSoon() }
                    case .at(let deadline): clock.onMainActor(atDate: deadline) { [weak self] in self?.absorbReceived() }
                    case nil: break
                    }
                    return offered.accepted ? .accepted : .notAccepted
                },
                sendFailed: { [weak self] error in
                    Task { @MainActor [weak self] in self?.sendFailed(error) }
                },
                statusChanged: { [weak self] status in
                    Task { @MainActor [weak self] in self?.transportChanged(status) }
                }))
        core.start(now: clock.date, devices: devicesMessages())
        reschedule()
    }

    /// Withdraws the current activity, ends every find, and closes the transport.
    public func shutdown() async {
        guard !isShutDown else { return }
        if let current = currentActivity { resign(current) }
        perform(core.shutdown(now: clock.date))
        isShutDown = true
        timer?.cancel()
        timer = nil
        await transport.close()
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    /// A stream of events for one listener; it ends at shutdown.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.subscribers[id] = nil }
        }
        return stream
    }

    /// Every nearby activity, newest save first.
    public var nearby: [NearbyActivity] { directory.activities }

    /// Nearby activities of types this program declares, newest first.
    public var continuable: [NearbyActivity] {
        let now = clock.date
        return directory.activities.filter { registry.isDeclared($0.record.activityType) && !$0.record.isExpired(at: now) }
    }

    // MARK: Receiving

    /// Applies every receiving rule to one datagram at once, here on the main actor; counts it
    /// as accepted, own, or rejected by reason. (A started center receives from its transport
    /// by itself; this is for datagrams from elsewhere, and for tests.)
    public func receive(_ datagram: ReceivedDatagram, now: Date? = nil) {
        _ = gate.offer(datagram, now: now ?? clock.date)
        absorbReceived()
    }

    /// Takes in at once what was heard and is still queued: news that a news frame holds
    /// (`Configuration.newsFrame`) and plain repeats. Call it before choosing from `nearby` to
    /// continue, so the newest revision is the one continued.
    public func takeInHeard() {
        absorbReceived()
    }

    /// Takes everything the gate has queued into the core.
    func absorbReceived() {
        absorbDue = nil
        let batch = gate.take(now: clock.date)
        guard !batch.isEmpty else { return }
        if !batch.otherKeySources.isEmpty {
            logger.notice("datagrams under another group key from \(batch.otherKeySources.joined(separator: ", "))")
            emit(.otherKeyHeard(sources: batch.otherKeySources))
        }
        if !batch.oldProtocolSources.isEmpty {
            logger.notice("protocol 1 or 2 datagrams from \(batch.oldProtocolSources.joined(separator: ", "))")
            emit(.oldProtocolHeard(sources: batch.oldProtocolSources))
        }
        perform(core.receive(batch, now: clock.date))
        reschedule()
    }

    /// Plain repeats are queued: take them in within `ReceiveGate.lazyDelay`.
    private func absorbSoon() {
        guard absorbDue == nil, !isShutDown else { return }
        absorbDue = clock.date.addingTimeInterval(ReceiveGate.lazyDelay.seconds)
        reschedule()
    }

    // MARK: The core's actions

    /// Carries out what the core asked, in order, after whatever it asked before.
    ///
    /// An action can call back into the core: `.save` runs the hooks and hands the record in, a
    /// delegate may resign its activity. The actions of that call queue behind the ones still
    /// waiting instead of running in the middle of them, so datagrams leave in the order the
    /// core numbered them: a repeat numbered in the same tick before a save goes out before the
    /// save's ANNOUNCE, never after it.
    func perform(_ actions: [HandoffCore.Action]) {
        pendingActions.append(contentsOf: actions)
        guard !isPerforming else { return }
        isPerforming = true
        defer { isPerforming = false }
        var next = 0
        while next < pendingActions.count {
            let action = pendingActions[next]
            next += 1
            carryOut(action)
        }
        pendingActions.removeAll()
    }

    private func carryOut(_ action: HandoffCore.Action) {
        switch action {
        case .save(let activityID):
            if let current = currentActivity, current.activityID == activityID, current.needsSave { save(current) }
        case .send(let message, let sequence, let at):
            send(message, sequence: sequence, at: at)
        case .saved(let record, _):
            // Looked up among the recent activities (the current one is the latest of them): an
            // action queued before this one may have made it stop being current since the save.
            if let activity = recentActivities.last(where: { $0.id == record.activityID })?.activity.value {
                activity.revision = record.revision
                activity.savedAt = record.savedAt
            }
            emit(.published(record))
        case .saveFailed(let type, let error):
            logger.notice("not published \(type): \(error)")
            emit(.saveFailed(activityType: type, error: error))
        case .shelve(let activityID, let revision, let digest, let record):
            // The record, not its encoding: the text it holds is the program's own (shared, not
            // copied), where the encoding of a 16 MB mixed-script text is 28 MB more. A fetch
            // makes the bytes again.
            stateStream?.shelf.put(activityID: activityID, revision: revision, digest: digest) {
                HandoffCore.stateEncoding(of: record)
            }
        case .unshelve(let activityID):
            stateStream?.shelf.remove(activityID: activityID)
        case .nearbyChanged:
            emit(.nearbyChanged)
        case .continued(let id, let peer):
            guard let activity = recentActivities.first(where: { $0.id == id })?.activity.value else { return }
            activity.delegate?.userActivityWasContinued(activity, by: peer)
            emit(.continued(activityID: id, by: peer))
        case .found(let id, let result):
            finding.removeValue(forKey: id)?.resume(returning: result)
            if finding.isEmpty { gate.holdsNews = true }
        case .storeHeard(let message, let sender, let source):
            storeListener?(message, sender, source.flatMap(NearbyActivity.host(of:)))
        case .devicesHeard(let statements, let digest, let sender):
            let change = membership.taking(statements)
            if !change.isEmpty {
                logger.notice(
                    "devices: statements taken\(change.newKey == nil ? "" : ", and a new group key (\(change.newKey!.keyID))")")
                membershipChanged(change)
            } else if digest != membership.digest, membership.device(for: sender.tag) != nil {
                // Answered for listed devices only: one that is not listed (a removed one among
                // them) could otherwise keep two peers answering each other every second.
                perform(core.devicesDiffer(now: clock.date))
                reschedule()
            }
        }
    }

    /// Sends the statements kept again and tells the program, after statements heard (or
    /// given by `membershipChangedElsewhere`) changed the list or the keys.
    private func membershipChanged(_ change: Membership.Change) {
        perform(core.devicesChanged(devicesMessages(), now: clock.date))
        reschedule()
        emit(.membershipChanged(change))
    }

    /// Another process changed the files the membership comes from (`baton devices remove`,
    /// `baton key --new`): the program has put the new picture in place with
    /// `Membership.replace`; its statements go out again at once.
    public func membershipReplaced() {
        guard !isShutDown else { return }
        perform(core.devicesChanged(devicesMessages(), now: clock.date))
        reschedule()
    }

    // MARK: Key-value stores

    /// Called with every STORE datagram accepted from a listed device (docs/PROTOCOL.md,
    /// section 18), with its sender and the host it came from (`NearbyActivity.sourceHost`'s
    /// form), where its store state is fetched. The stores themselves live above the center
    /// (`HandoffStore`'s `StoreSync`).
    public var storeListener: (@MainActor (StoreMessage, SenderID, String?) -> Void)?

    /// Seals and sends a STORE datagram, numbered after everything sent before it; nothing
    /// before `start` or after `shutdown`. False when it was not sent.
    @discardableResult
    public func sendStore(_ message: StoreMessage) -> Bool {
        guard isStarted, !isShutDown else { return false }
        perform(core.send(.store(message), now: clock.date))
        return true
    }

    /// The DEVICES messages for every statement kept, under this peer's datagram limit.
    private func devicesMessages() -> [HandoffMessage] {
        membership.devicesMessages(limit: configuration.maximumDatagramSize, sentAt: clock.date)
    }

    /// Seals and sends one message. DEVICES go out under the previous group key too, with the
    /// same sequence (each key gives its own sender key), so that a peer that missed the last
    /// key change can still open the statement that gives it the new key.
    private func send(_ message: HandoffMessage, sequence: UInt64, at: Date) {
        let codec = membership.codec(allowedClockSkew: configuration.allowedClockSkew)
        var keys = [codec.keys.current]
        if message.kind == .devices, let previous = codec.keys.previous { keys.append(previous) }
        do {
            for key in keys {
                transport.send(
                    try codec.encode(
                        message, identity: membership.identity, senderID: senderID, sequence: sequence, sentAt: at,
                        under: key))
            }
        } catch {
            logger.error("cannot encode \(message.kind): \(error)")
        }
    }

    private func transportChanged(_ status: TransportStatus) {
        logger.notice("network: \(status)")
        emit(.transportChanged(status))
    }

    private func sendFailed(_ error: TransportError) {
        logger.warning("send failed: \(error)")
        emit(.sendFailed(error))
    }

    // MARK: Helpers

    func emit(_ event: Event) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    func remember(_ activity: UserActivity) {
        recentActivities.removeAll { $0.id == activity.activityID || $0.activity.value == nil }
        recentActivities.append((activity.activityID, WeakActivity(value: activity)))
        if recentActivities.count > 16 { recentActivities.removeFirst(recentActivities.count - 16) }
    }

    /// Registers a `find` and returns its id; `.found` resumes `continuation`.
    func beginFind(_ continuation: CheckedContinuation<NearbyActivity?, Never>) -> HandoffCore.FindID {
        nextFindID += 1
        finding[nextFindID] = continuation
        // A find waits for answers: news is taken at once while one runs, frame or not.
        gate.holdsNews = false
        return nextFindID
    }

    var isRunning: Bool { !isShutDown }
}

/// A weak reference to an activity.
@MainActor
private struct WeakActivity {
    weak var value: UserActivity?
}
