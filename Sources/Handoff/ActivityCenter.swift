import Foundation

/// Publishes the current activity to peers and keeps the directory of what is nearby.
///
/// The three save hooks, the directory and the continue flow run on the main actor, one
/// step at a time. Saves are coalesced: the first change after a quiet period is saved at
/// once; while changes keep coming, at most one save per `saveWindow`; the last change is
/// always saved. A revision is repeated every `repeatInterval`; one that has stood that long
/// is first repeated in a quick burst (`burstRepeats`, `burstInterval` apart), so that the
/// state a person leaves behind survives lost datagrams.
///
/// Receiving starts on the transport's thread: a `ReceiveGate` applies the receiving rules
/// that need no main actor (decoding, replay) and queues what passes; the main actor takes
/// the queue in batches, at once when something changed and lazily for plain repeats.
@MainActor
public final class ActivityCenter {
    /// Timings, limits and identity; the defaults are PROTOCOL.md's, with Baton's repeat burst on top.
    public struct Configuration: Sendable {
        public var peer: PeerInfo
        public var senderID: SenderID
        /// At most one save per window while changes keep coming.
        public var saveWindow: Duration = .milliseconds(20)
        /// How often the current ANNOUNCE is repeated.
        public var repeatInterval: Duration = .seconds(1)
        /// How many quick repeats a revision gets once it has stood for `repeatInterval`;
        /// zero keeps to `repeatInterval` alone.
        ///
        /// A save sent once and repeated each second reaches a receiver that loses 30 % of its
        /// datagrams within 2 s only if one of 2 sends arrives: 2.7 % do not, too many for a
        /// p99. With the burst, 9 sends fall within 2 s of the last change (0.002 % all lost)
        /// and 15 within 5 s. A revision replaced within a second (a counter pressed, text
        /// typed) is not repeated at all: only the state that stays needs to arrive.
        public var burstRepeats = 12
        /// How far apart the quick repeats are.
        public var burstInterval: Duration = .milliseconds(125)
        /// A peer's activity is forgotten when not heard for this long.
        public var forgetAfter: Duration = .milliseconds(3500)
        /// The longest random delay before answering a QUERY.
        public var queryAnswerDelay: Duration = .milliseconds(20)
        /// After the first answer to our QUERY, how long to gather others before picking the newest.
        public var queryGatherWindow: Duration = .milliseconds(30)
        /// How far `sentAt` may be from this clock.
        public var allowedClockSkew: TimeInterval = 60
        public var directoryLimits = PeerDirectory.Limits()

        public init(peer: PeerInfo, senderID: SenderID = .random()) {
            self.peer = peer
            self.senderID = senderID
        }

        /// When the repeat after the one at `elapsed` falls, both counted from a save when
        /// `sinceSave` (else from start-up): at `repeatInterval`, then `burstRepeats - 1` more
        /// every `burstInterval`, then every `repeatInterval`.
        public func `repeat`(after elapsed: Duration, sinceSave: Bool) -> Duration {
            let quick = min(burstInterval, repeatInterval)
            guard sinceSave, burstRepeats > 0, quick > .zero else { return elapsed + repeatInterval }
            if elapsed < repeatInterval { return repeatInterval }
            let burstEnd = repeatInterval + quick * (burstRepeats - 1)
            return elapsed + (elapsed < burstEnd ? quick : repeatInterval)
        }
    }

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
        /// The transport refused to send.
        case sendFailed(String)
    }

    public let registry: ActivityTypeRegistry
    public let configuration: Configuration
    public let transport: any ActivityTransport
    public weak var applicationDelegate: (any ApplicationDelegate)?

    public private(set) var currentActivity: UserActivity?
    /// What is nearby, with every datagram received so far taken in.
    public var directory: PeerDirectory {
        absorbReceived()
        return peers
    }
    /// What was received, with every datagram so far counted.
    public var statistics: ReceiveStatistics {
        absorbReceived()
        return counts
    }
    /// The record last published for the current activity.
    public private(set) var lastPublished: ActivityRecord?
    /// Datagrams handed to the transport.
    public private(set) var sentCount = 0
    /// Saves run (hooks called), whether or not they published.
    public private(set) var saveCount = 0

    private let codec: DatagramCodec
    private let gate: ReceiveGate
    private var peers: PeerDirectory
    private var counts = ReceiveStatistics()
    private var isStarted = false
    private var sequence: UInt64 = 0
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private var senderTask: Task<Void, Never>?
    private var repeatTask: Task<Void, Never>?
    private var expiryTask: Task<Void, Never>?
    private var saveTask: Task<Void, Never>?
    private var queryAnswerPending = false
    private var lastSave: ContinuousClock.Instant?
    private var subscribers: [UUID: AsyncStream<Event>.Continuation] = [:]
    private var waiters: [NearbyWaiter] = []
    /// Our recent activities by id, so a CONTINUED for one that is no longer current still reaches its delegate.
    private var recentActivities: [(id: String, activity: WeakActivity)] = []
    private var isShutDown = false

    public init(
        registry: ActivityTypeRegistry, groupKey: GroupKey, transport: any ActivityTransport,
        configuration: Configuration
    ) {
        self.registry = registry
        self.configuration = configuration
        self.transport = transport
        var codec = DatagramCodec(groupKey: groupKey, allowedClockSkew: configuration.allowedClockSkew)
        codec.readerLimits = BinaryPropertyListReader.Limits()
        self.codec = codec
        gate = ReceiveGate(codec: codec, ownSender: configuration.senderID, limits: configuration.directoryLimits)
        peers = PeerDirectory(limits: configuration.directoryLimits)
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        outbox = continuation
        senderTask = Task { [transport, weak self] in
            for await bytes in stream {
                do {
                    try await transport.send(bytes)
                } catch {
                    self?.emit(.sendFailed("\(error)"))
                }
            }
        }
    }

    // MARK: Life

    /// Starts receiving and repeating the current activity.
    public func start() {
        guard !isStarted, !isShutDown else { return }
        isStarted = true
        let gate = gate
        transport.deliverIncoming { [weak self] datagram in
            switch gate.offer(datagram, now: Date()) {
            case .now:
                Task { @MainActor [weak self] in self?.absorbReceived() }
            case .soon:
                Task { @MainActor [weak self] in
                    try? await Task.sleep(for: ReceiveGate.lazyDelay)
                    self?.absorbReceived()
                }
            case nil:
                break
            }
        }
        scheduleRepeats(fast: false)
    }

    /// Withdraws the current activity, sends what is queued, and closes the transport.
    public func shutdown() async {
        guard !isShutDown else { return }
        if let current = currentActivity { resign(current) }
        isShutDown = true
        for task in [repeatTask, expiryTask, saveTask] { task?.cancel() }
        outbox.finish()
        await senderTask?.value
        await transport.close()
        for waiter in waiters { waiter.finish(nil) }
        waiters.removeAll()
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
        let now = Date()
        return directory.activities.filter { registry.isDeclared($0.record.activityType) && !$0.record.isExpired(at: now) }
    }

    // MARK: Current activity and saving

    func makeCurrent(_ activity: UserActivity) {
        guard !isShutDown else { return }
        if let previous = currentActivity, previous !== activity { resign(previous) }
        guard currentActivity !== activity else { return }
        currentActivity = activity
        remember(activity)
        activity.needsSave = true
        activityNeedsSave(activity)
    }

    func resign(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        currentActivity = nil
        saveTask?.cancel()
        saveTask = nil
        if lastPublished != nil, activity.isEligibleForHandoff {
            send(.withdraw(activityID: activity.activityID))
        }
        lastPublished = nil
    }

    func eligibilityChanged(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        if activity.isEligibleForHandoff {
            activity.needsSave = true
        } else if lastPublished != nil {
            send(.withdraw(activityID: activity.activityID))
            lastPublished = nil
        }
    }

    func activityNeedsSave(_ activity: UserActivity) {
        guard currentActivity === activity, saveTask == nil, !isShutDown else { return }
        let now = ContinuousClock.now
        let delay = lastSave.map { $0 + configuration.saveWindow - now } ?? .zero
        saveTask = Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard let self, !Task.isCancelled else { return }
            self.saveTask = nil
            self.lastSave = ContinuousClock.now
            if let current = self.currentActivity, current.needsSave { self.save(current) }
        }
    }

    /// Runs the three hooks in order, then validates, numbers, encodes and sends.
    private func save(_ activity: UserActivity) {
        saveCount += 1
        activity.isSaving = true
        activity.delegate?.userActivityWillSave(activity)
        activity.responder?.updateUserActivityState(activity)
        applicationDelegate?.didUpdate(activity)
        activity.isSaving = false
        activity.needsSave = false
        guard currentActivity === activity else { return }

        let now = Date()
        var record = activity.record(peer: configuration.peer)
        record.revision = activity.revision + 1
        record.savedAt = now
        do {
            try registry.validate(
                type: record.activityType, userInfo: record.userInfo, requiredKeys: record.requiredUserInfoKeys ?? [])
            let size = DatagramCodec.plaintext(.announce(record), sentAt: now).count
            guard size <= GroupKeyCipher.maximumPlaintext else {
                throw HandoffError.payloadTooLarge(bytes: size, limit: GroupKeyCipher.maximumPlaintext)
            }
        } catch let error as HandoffError {
            emit(.saveFailed(activityType: record.activityType, error: error))
            return
        } catch {
            return
        }
        activity.revision = record.revision
        activity.savedAt = now
        if activity.isEligibleForHandoff {
            lastPublished = record
            send(.announce(record))
            scheduleRepeats(fast: true)
        }
        emit(.published(record))
    }

    /// Repeats the current ANNOUNCE from now on, with the burst when `fast` (just after a save).
    private func scheduleRepeats(fast: Bool) {
        guard isStarted, !isShutDown else { return }
        repeatTask?.cancel()
        let from = ContinuousClock.now
        let configuration = configuration
        repeatTask = Task { [weak self] in
            var elapsed = Duration.zero
            while !Task.isCancelled {
                elapsed = configuration.repeat(after: elapsed, sinceSave: fast)
                try? await Task.sleep(until: from + elapsed, clock: .continuous)
                guard let self, !Task.isCancelled else { return }
                self.repeatCurrent()
            }
        }
    }

    private func repeatCurrent() {
        guard let record = lastPublished, let current = currentActivity, current.isEligibleForHandoff,
            current.activityID == record.activityID
        else { return }
        send(.announce(record))
    }

    // MARK: Sending

    private func send(_ message: HandoffMessage) {
        guard !isShutDown else { return }
        sequence += 1
        do {
            let bytes = try codec.encode(message, senderID: configuration.senderID, sequence: sequence, sentAt: Date())
            sentCount += 1
            // Straight to the transport's thread when it can take it so (one hop fewer per
            // datagram); else through the outbox, in order.
            let posted = transport.post(bytes) { [weak self] reason in
                Task { @MainActor in self?.emit(.sendFailed(reason)) }
            }
            if !posted { outbox.yield(bytes) }
        } catch {
            emit(.sendFailed(error.description))
        }
    }

    // MARK: Receiving

    /// Applies every receiving rule to one datagram at once, here on the main actor; counts it
    /// as accepted, own, or rejected by reason. (A started center receives from its transport
    /// by itself; this is for datagrams from elsewhere, and for tests.)
    public func receive(_ datagram: ReceivedDatagram, now: Date = Date()) {
        _ = gate.offer(datagram, now: now)
        absorbReceived()
    }

    /// Takes everything the gate has queued: counts, plain repeats, then what changes things, in
    /// arrival order. The nearby list is announced changed once per batch.
    private func absorbReceived() {
        let batch = gate.take()
        guard !batch.isEmpty else { return }
        counts.add(batch.statistics)
        var changed = false
        var announced = false
        for arrival in batch.refreshes.values.sorted(by: { $0.at < $1.at }) + batch.arrivals {
            if case .announce = arrival.message { announced = true }
            changed = handle(arrival) || changed
        }
        if announced { scheduleExpiry() }
        if changed { directoryChanged() }
    }

    /// Acts on one accepted message; true when the nearby list changed.
    private func handle(_ arrival: ReceiveGate.Arrival) -> Bool {
        switch arrival.message {
        case .announce(let record):
            switch peers.announce(record, from: arrival.sender, at: arrival.at, source: arrival.source) {
            case .added(let entry), .updated(let entry):
                offerToWaiters(entry)
                return true
            case .removed, nil:
                return false
            }
        case .withdraw(let id):
            return peers.withdraw(activityID: id, from: arrival.sender) != nil
        case .query(let types):
            answerQuery(types: types)
        case .continued(let id, let peer):
            guard let activity = recentActivities.first(where: { $0.id == id })?.activity.value else { return false }
            activity.delegate?.userActivityWasContinued(activity, by: peer)
            emit(.continued(activityID: id, by: peer))
        }
        return false
    }

    private func answerQuery(types: [String]?) {
        guard !queryAnswerPending, let record = lastPublished else { return }
        if let types, !types.contains(record.activityType) { return }
        queryAnswerPending = true
        let maxDelay = configuration.queryAnswerDelay
        let delay = Duration.nanoseconds(Int64.random(in: 0...max(0, maxDelay.nanoseconds)))
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard let self else { return }
            self.queryAnswerPending = false
            self.repeatCurrent()
        }
    }

    private func scheduleExpiry() {
        guard expiryTask == nil else { return }
        let timeout = configuration.forgetAfter.seconds
        expiryTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let self, let next = self.peers.nextExpiry(timeout: timeout) else { break }
                let wait = next.timeIntervalSinceNow
                if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
                if Task.isCancelled { return }
                // Repeats still queued may keep an activity alive.
                self.absorbReceived()
                if !self.peers.expire(at: Date(), timeout: timeout).isEmpty { self.directoryChanged() }
            }
            self?.expiryTask = nil
        }
    }

    private func directoryChanged() {
        emit(.nearbyChanged)
    }

    /// Lets every waiting `findNearby` see an activity as it arrives, so one that a flood
    /// pushes out of the directory a moment later is still found.
    private func offerToWaiters(_ entry: NearbyActivity) {
        guard !waiters.isEmpty else { return }
        for waiter in waiters { waiter.consider(entry) }
        waiters.removeAll { $0.isDone }
    }

    // MARK: Continuing

    /// Continues an activity from the nearby list: checks it, asks the application delegate
    /// to continue it (its responders restore the state), then tells the source with CONTINUED.
    @discardableResult
    public func continueActivity(_ nearby: NearbyActivity) throws(HandoffError) -> UserActivity {
        let record = nearby.record
        let type = record.activityType
        do throws(HandoffError) {
            if let delegate = applicationDelegate, !delegate.willContinue(activityType: type) {
                throw HandoffError.declined(type: type)
            }
            if record.isExpired(at: Date()), let at = record.expiresAt { throw HandoffError.expired(type: type, at: at) }
            try registry.validate(type: type, userInfo: record.userInfo, requiredKeys: record.requiredUserInfoKeys ?? [])
        } catch {
            applicationDelegate?.didFailToContinue(activityType: type, error: error)
            throw error
        }
        let activity = UserActivity(record: record, center: self)
        if let delegate = applicationDelegate {
            let handled = delegate.continue(activity) { responders in
                for responder in responders { responder.restoreUserActivityState(activity) }
            }
            guard handled else {
                let error = HandoffError.declined(type: type)
                delegate.didFailToContinue(activityType: type, error: error)
                throw error
            }
        }
        send(.continued(activityID: record.activityID, peer: configuration.peer))
        return activity
    }

    /// Asks peers with QUERY, waits up to `timeout` for a matching activity (of `type`, from a
    /// peer named `peer`, when given), and continues the newest one found.
    @discardableResult
    public func continueActivity(type: String? = nil, from peer: String? = nil, timeout: Duration)
        async throws(HandoffError) -> UserActivity
    {
        let found = await findNearby(type: type, from: peer, timeout: timeout)
        guard let found else {
            let error = HandoffError.notFound(type: type, peer: peer, waited: timeout, endpoint: transport.endpointDescription)
            applicationDelegate?.didFailToContinue(activityType: type ?? "*", error: error)
            throw error
        }
        return try continueActivity(found)
    }

    /// Asks every peer with a current activity (of these types, when given) to announce it now.
    public func query(types: [String]? = nil) {
        start()
        send(.query(types: types))
    }

    /// Sends QUERY and waits for the newest nearby activity that matches, or nil after `timeout`.
    /// Without a type, activities of declared types are preferred.
    public func findNearby(type: String? = nil, from peer: String? = nil, timeout: Duration) async -> NearbyActivity? {
        query(types: type.map { [$0] })
        let waiter = NearbyWaiter(
            type: type, peer: peer, registry: registry,
            gatherUntil: ContinuousClock.now + configuration.queryGatherWindow)
        return await withCheckedContinuation { continuation in
            waiter.continuation = continuation
            for entry in directory.activities { waiter.consider(entry) }
            waiters.append(waiter)
            let gather = configuration.queryGatherWindow
            Task { [weak self, waiter] in
                try? await Task.sleep(for: gather)
                waiter.check()
                try? await Task.sleep(for: timeout - gather)
                waiter.finish(waiter.best())
                self?.waiters.removeAll { $0.isDone }
            }
        }
    }

    // MARK: Helpers

    private func emit(_ event: Event) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    private func remember(_ activity: UserActivity) {
        recentActivities.removeAll { $0.id == activity.activityID || $0.activity.value == nil }
        recentActivities.append((activity.activityID, WeakActivity(value: activity)))
        if recentActivities.count > 16 { recentActivities.removeFirst(recentActivities.count - 16) }
    }
}

/// A weak reference to an activity.
@MainActor
private struct WeakActivity {
    weak var value: UserActivity?
}

/// One caller of `findNearby` waiting for a match: it keeps every matching activity it is
/// offered, newest revision of each, and answers with the newest once the gathering window
/// after the QUERY has passed.
@MainActor
private final class NearbyWaiter {
    let type: String?
    let peer: String?
    let registry: ActivityTypeRegistry
    let gatherUntil: ContinuousClock.Instant
    var continuation: CheckedContinuation<NearbyActivity?, Never>?
    private(set) var isDone = false
    private var candidates: [String: NearbyActivity] = [:]

    init(type: String?, peer: String?, registry: ActivityTypeRegistry, gatherUntil: ContinuousClock.Instant) {
        self.type = type
        self.peer = peer
        self.registry = registry
        self.gatherUntil = gatherUntil
    }

    /// Keeps `entry` if it is of the type and peer asked for; finishes if the window has passed.
    func consider(_ entry: NearbyActivity) {
        guard !isDone, type == nil || entry.record.activityType == type, peer == nil || entry.record.peer.name == peer
        else { return }
        if let known = candidates[entry.id], known.record.revision > entry.record.revision { return }
        candidates[entry.id] = entry
        check()
    }

    /// The newest match, unexpired; without a type asked for, declared types first.
    func best() -> NearbyActivity? {
        let now = Date()
        let matches = candidates.values.filter { !$0.record.isExpired(at: now) }
            .sorted { ($0.record.savedAt, $0.id) > ($1.record.savedAt, $1.id) }
        if type == nil, let declared = matches.first(where: { registry.isDeclared($0.record.activityType) }) {
            return declared
        }
        return matches.first
    }

    /// Finishes with the best match once the gathering window has passed.
    func check() {
        guard !isDone, ContinuousClock.now >= gatherUntil, let match = best() else { return }
        finish(match)
    }

    func finish(_ result: NearbyActivity?) {
        guard !isDone else { return }
        isDone = true
        continuation?.resume(returning: result)
        continuation = nil
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (s, atto) = components
        return TimeInterval(s) + TimeInterval(atto) / 1e18
    }

    var nanoseconds: Int64 {
        let (s, atto) = components
        return s * 1_000_000_000 + atto / 1_000_000_000
    }
}
