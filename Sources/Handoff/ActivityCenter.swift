import FoundationEssentials
import Logging
import HandoffWire

/// Publishes the current activity to peers and keeps the directory of what is nearby.
///
/// The rules live in `HandoffCore`, which never reads a clock or touches the network; the
/// center is the runner that carries out what the core asks, on the main actor: it runs the
/// three save hooks, hands messages to the bus to send, shelves large states, and tells
/// listeners what happened.
///
/// What every message kind shares — the transport, numbering and sealing, the receive gate,
/// the shelf of states, the timer — is the `DatagramBus`'s. The center is its activities'
/// service (ANNOUNCE, WITHDRAW, QUERY, OFFER, CONTINUED) and the facade of the two others it
/// sets up on it: the devices' gossip (`DevicesService`) and the key-value stores
/// (`StoreService`).
@MainActor
public final class ActivityCenter {
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
        var statistics = bus.statistics
        statistics.add(bus.gate.pendingStatistics)
        return statistics
    }
    /// The addresses (without port) that datagrams under another group key came from, first
    /// heard first, at most 8: a machine that holds another key is there. Read at once from the
    /// receiving side, whether or not the main actor has taken in what arrived.
    public var otherKeySources: [String] { bus.gate.otherKeySources }
    /// The addresses (without port) that version 1 or 2 datagrams came from, first heard first,
    /// at most 8. Read at once from the receiving side.
    public var oldProtocolSources: [String] { bus.gate.oldProtocolSources }
    /// This device's identity, group keys and list of devices.
    public let membership: Membership
    /// The sender id this peer sends with: its device's tag and the instance of
    /// `configuration.senderID` (whose own tag is replaced when it names another device).
    public let senderID: SenderID
    /// The record last published for the current activity.
    public var lastPublished: ActivityRecord? { core.lastPublished }
    /// Datagrams handed to the transport.
    public var sentCount: Int { bus.sentCount }
    /// Saves run (hooks called), whether or not they published.
    public internal(set) var saveCount = 0
    /// Tests only: awaited on the detached task before a large state is encoded, to hold an
    /// encoding in flight while the main actor goes on.
    var beforeEncoding: (@Sendable (ActivityRecord) async -> Void)?
    /// Encodings made off the main actor and handed back to it, whether or not they went out.
    var encodingsHandedBack = 0

    var core: HandoffCore
    let logger: Logger
    /// What every message kind shares; the center is the service of the activities' kinds.
    let bus: DatagramBus
    /// The DEVICES statements' service.
    let devices: DevicesService
    /// The key-value stores' service.
    let store: StoreService
    private var isStarted = false
    private(set) var isShutDown = false
    var subscribers: [UUID: AsyncStream<Event>.Continuation] = [:]
    /// Called with each event as it is emitted (`observeEvents`).
    var observers: [@MainActor (Event) -> Void] = []
    private var finding: [HandoffCore.FindID: CheckedContinuation<NearbyActivity?, Never>] = [:]
    private var nextFindID: HandoffCore.FindID = 0
    /// Our recent activities by id, so a CONTINUED for one that is no longer current still reaches its delegate.
    private var recentActivities: [(id: String, activity: WeakActivity)] = []
    func recentActivity(withID id: String) -> UserActivity? { recentActivities.first { $0.id == id }?.activity.value }
    /// The continuation streams this program accepted that are still open.
    let openStreams = ContinuationStreamTally()
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
        let bus = DatagramBus(
            membership: membership, transport: transport, clock: clock, senderID: senderID,
            allowedClockSkew: configuration.allowedClockSkew, limits: configuration.directoryLimits,
            newsFrame: configuration.newsFrame, stateStream: stateStream, logger: logger)
        self.bus = bus
        devices = DevicesService(bus: bus, configuration: configuration)
        store = StoreService(bus: bus)
        core = HandoffCore(configuration: configuration, registry: registry)
        core.streamPort = stateStream?.port
        openContinuationDoor()
        bus.register(self)
        bus.register(devices)
        bus.register(store)
        bus.report = { [weak self] report in self?.heard(report) }
        devices.changed = { [weak self] change in self?.emit(.membershipChanged(change)) }
    }

    // MARK: Life

    /// Starts receiving, repeating the current activity and sending the statements kept.
    public func start() {
        guard !isStarted, !isShutDown else { return }
        isStarted = true
        bus.start()
    }

    /// Withdraws the current activity, ends every find, and closes the transport.
    public func shutdown() async {
        guard !isShutDown else { return }
        if let current = currentActivity { resign(current) }
        perform(core.shutdown(now: clock.reading))
        isShutDown = true
        await bus.shutdown()
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        observers.removeAll()
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
        bus.receive(datagram, now: now ?? clock.date)
    }

    /// Takes in at once what was heard and is still queued: news that a news frame holds
    /// (`Configuration.newsFrame`) and plain repeats. Call it before choosing from `nearby` to
    /// continue, so the newest revision is the one continued.
    public func takeInHeard() {
        absorbReceived()
    }

    /// Takes everything the gate has queued in, and hands it out to the services.
    func absorbReceived() {
        bus.absorb()
    }

    // MARK: The core's actions

    /// Carries out what the core asked, in order, after whatever it asked before.
    ///
    /// An action can call back into the core: `.save` runs the hooks and hands the record in, a
    /// delegate may resign its activity. The actions of that call queue behind the ones still
    /// waiting instead of running in the middle of them, so messages leave in the order the
    /// core asked for them (the bus numbers each as it is written): a repeat asked for in the
    /// same tick before a save goes out before the save's ANNOUNCE, never after it.
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
        case .send(let message, let at):
            bus.send(message, at: at)
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
            stateStream?.shelf.put(.activity(activityID), revision: revision, digest: digest) {
                HandoffCore.stateEncoding(of: record)
            }
            trimShelfLater()
        case .unshelve(let activityID):
            stateStream?.shelf.remove(.activity(activityID))
        case .nearbyChanged:
            emit(.nearbyChanged)
        case .continued(let id, let peer):
            guard let activity = recentActivity(withID: id) else { return }
            activity.delegate?.userActivityWasContinued(activity, by: peer)
            emit(.continued(activityID: id, by: peer))
        case .found(let id, let result):
            finding.removeValue(forKey: id)?.resume(returning: result)
            if finding.isEmpty { bus.gate.holdsNews = true }
        }
    }

    /// Another process changed the files the membership comes from (`baton devices remove`,
    /// `baton key --new`): the program has put the new picture in place with
    /// `Membership.replace`; its statements go out again at once.
    public func membershipReplaced() {
        guard !isShutDown else { return }
        devices.replaced(now: clock.reading)
    }

    /// What the bus tells: the transport's news, and addresses a person should hear of.
    private func heard(_ report: DatagramBus.Report) {
        switch report {
        case .sendFailed(let error):
            logger.warning("send failed: \(error)")
            emit(.sendFailed(error))
        case .transportChanged(let status):
            logger.notice("network: \(status)")
            emit(.transportChanged(status))
        case .otherKeyHeard(let sources):
            logger.notice("datagrams under another group key from \(sources.joined(separator: ", "))")
            emit(.otherKeyHeard(sources: sources))
        case .oldProtocolHeard(let sources):
            logger.notice("protocol 1 or 2 datagrams from \(sources.joined(separator: ", "))")
            emit(.oldProtocolHeard(sources: sources))
        }
    }

    // MARK: Helpers

    func emit(_ event: Event) {
        for continuation in subscribers.values { continuation.yield(event) }
        for observer in observers { observer(event) }
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
        bus.gate.holdsNews = false
        return nextFindID
    }

    var isRunning: Bool { !isShutDown }
}

/// A weak reference to an activity.
@MainActor
private struct WeakActivity {
    weak var value: UserActivity?
}
