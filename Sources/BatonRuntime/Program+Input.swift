import BatonApp
import BatonFiles
import FoundationEssentials
import Dispatch
import Handoff
import HandoffWire
import TerminalUI

extension Program {
    // MARK: Inputs

    /// The message of one input event.
    static func message(for event: TerminalEvent) -> AppMessage {
        switch event {
        case .key(let key): .key(key)
        case .paste(let text): .paste(text)
        case .resize(let size): .resize(size)
        case .mouse(let mouse): .mouse(mouse)
        }
    }

    /// Posts a batch of input behind what waits in the inbox.
    func post(_ batch: [TerminalEvent]) {
        for event in batch {
            inbox.yield(Self.message(for: event))
        }
    }

    /// A batch of input, on the input thread as a job of the main queue (`DispatchQueue.main.sync`
    /// runs it there when the main queue is free, and waits for it otherwise). With nothing waiting
    /// in the inbox, the loop is idle: the batch is taken here as the loop would take it, drawn
    /// once, and no other thread wakes. Otherwise it goes behind what waits, in order.
    func takeInput(_ batch: [TerminalEvent]) {
        guard loopRunning, !model.isQuitting, inbox.waiting == 0 else {
            post(batch)
            return
        }
        let messages = batch.map(Self.message(for:))
        for (index, message) in messages.enumerated() {
            guard take(message, thenWaiting: messages.count - index - 1 + inbox.waiting) else {
                inbox.finish()  // quitting: the loop ends, and stops the program
                return
            }
        }
    }

    /// The inbox's drainer's job: what was posted while the loop waited, taken as the loop would
    /// take it.
    func takeQueued() {
        while let message = inbox.takeQueued() {
            guard loopRunning, !model.isQuitting, take(message, thenWaiting: inbox.waiting) else {
                inbox.finish()  // quitting: the loop ends, and stops the program
                return
            }
        }
    }

    /// A second passed. Ages and notices change with time, and a pause ends a run of typing:
    /// the model ticks while it wants to. A timer of the main actor's own: a task that slept
    /// woke a thread of the global executor, then the main queue's, each second.
    func tickDue() {
        if model.wantsTicks { inbox.yield(.tick(clock.date)) }
        tickTimer.schedule(clock.now + .seconds(1))
    }

    func listen() {
        // Input straight from the input thread where the backend allows it: one thread fewer to
        // wake between a key and the screen (see `takeInput`). What was read before comes first.
        if let direct = backend as? any DirectInputBackend,
           let earlier = direct.handInput(to: { [weak self] batch in
               DispatchQueue.main.sync { MainActor.assumeIsolated { self?.takeInput(batch) } }
           }) {
            for batch in earlier { post(batch) }
        }
        let keys = backend.events()
        tasks.append(Task { [weak self, inbox, logger] in
            for await batch in keys {
                self?.post(batch)
            }
            // Cancelled by `stop` is not closed: the loop has already ended.
            guard !Task.isCancelled else { return }
            logger.info("input closed")
            inbox.yield(.inputClosed)
        })
        // Each event is acted on once the center is done with what raised it, in order, on the
        // main queue: iterating `events()` woke a thread of the global executor, then the main
        // queue's, for each (a save's `.published` comes once a key in a small file).
        center.observeEvents { [weak self] event in
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    guard let self, !self.inbox.isFinished else { return }  // stopped
                    self.translate(event)
                }
            }
        }
        if let changes = clipboard?.changes() {
            tasks.append(Task { [weak self, inbox] in
                for await _ in changes {
                    guard let clip = self?.clipboard?.clip() else { continue }
                    inbox.yield(.clipboard(clip))
                }
            })
        }
        tickTimer.schedule(clock.now + .seconds(1))
        // What was heard before the UI started (e.g. while continuing at launch).
        inbox.yield(.nearbyChanged(continuableItems()))
        inbox.yield(.peersHeard(center.directory.peerNames.count))
    }

    func translate(_ event: ActivityCenter.Event) {
        switch event {
        case .nearbyChanged:
            refreshNearby()
        case .published(let record):
            logger.info("published \(record.activityType) revision \(record.revision)")
            inbox.yield(.published)
            if case .offline = model.status.network {} else { inbox.yield(.network(Self.networkState(center.transport.status))) }
        case .saveFailed(let type, let error):
            logger.warning("not published \(type): \(error)")
            inbox.yield(.publishFailed(error.description))
        case .continued:
            break  // userActivityWasContinued tells us, as the activity's delegate
        case .sendFailed(let error):
            logger.warning("send failed: \(error)")
            switch error {
            case .closed, .offline:
                inbox.yield(.network(.offline(error.description)))
            case .sendFailed, .datagramTooLarge:
                break  // one destination or one datagram: the transport's status says what is left
            }
        case .otherKeyHeard(let sources):
            logger.notice("datagrams under another group key from \(sources.map(PeerText.visible).joined(separator: ", "))")
        case .oldProtocolHeard(let sources):
            logger.notice("protocol 2 datagrams from \(sources.map(PeerText.visible).joined(separator: ", ")): update Baton there")
        case .membershipChanged(let change):
            logger.notice("devices changed\(change.newKey == nil ? "" : ", and the group key")")
            if let removed = Self.removedState(center.membership.roster) {
                logger.warning("\(removed.label): this machine was removed from the group")
                inbox.yield(.network(removed))
            }
        case .transportChanged(let status):
            logger.notice("network: \(status)")
            if case .offline = model.status.network {} else { inbox.yield(.network(Self.networkState(status))) }
        }
    }

    /// `.removed` with by whom and what to do, when `roster` holds a removal of this device.
    nonisolated public static func removedState(
        _ roster: DeviceRoster, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> NetworkState? {
        guard let removal = roster.ownRemoval else { return nil }
        let by = roster.name(of: removal.by).map { "by \(PeerText.visible($0)); " } ?? ""
        return .removed("\(by)no machine hears this one. To come back, \(DeviceIdentity.removedRemedy(environment: environment))")
    }

    /// Online, or limited with the transport's warning when a path is down.
    public static func networkState(_ status: TransportStatus) -> NetworkState {
        status.warning.map { .limited($0) } ?? .online
    }

    func refreshNearby() {
        guard !nearbyRefreshPending else { return }
        nearbyRefreshPending = true
        let now = clock.now
        let delay = lastNearbyRefresh.map { $0 + nearbyRefreshInterval - now } ?? .zero
        Task { [weak self, clock] in
            if delay > .zero { try? await clock.sleep(for: delay) }
            guard let self else { return }
            self.nearbyRefreshPending = false
            self.lastNearbyRefresh = clock.now
            self.inbox.yield(.nearbyChanged(self.continuableItems()))
            self.inbox.yield(.peersHeard(self.center.directory.peerNames.count))
        }
    }

    func continuableItems() -> [NearbyItem] {
        NearbyItem.items(center.continuable)
    }
}
