import BatonApp
import Handoff
import HandoffWire
import Synchronization

/// The live session's streams (docs/PROTOCOL.md, sections 10 and 19): each open stream is a
/// numbered link with one task that sends what the model asks, in order, and says when each
/// went, and one that reads what comes. The model decides what to send and when; this only
/// carries it.
extension Program {
    /// One open continuation stream.
    struct LiveLink {
        let stream: ContinuationStream
        /// What the model asked to send and was not sent at once, in order; finished by `.liveClose`.
        let outbox: AsyncStream<Outgoing>.Continuation
        /// Messages in `outbox` and its sender, not yet sent.
        let queued: Queued
        let sender: Task<Void, Never>
        /// Its messages, read as they arrive; nil until the link is read.
        var reading: LiveReading?
    }

    /// A message for the sender: a whole state, encoded there, off the main actor; or the bytes
    /// of a small one that could not go at once.
    enum Outgoing: Sendable {
        case message(LiveMessage)
        case bytes([UInt8])
    }

    final class Queued: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Whether `command` sends to a live peer or closes a link: held with the others until the
    /// key is drawn (`flush`), so the order between them stays.
    static func isLiveOutput(_ command: AppCommand) -> Bool {
        switch command {
        case .liveSend, .liveClose: true
        default: false
        }
    }

    /// Performs the live commands held for the draw, in order, and takes what went at once
    /// as acknowledged (which may send the next change, also sent here).
    func sendLiveDue() {
        while !liveDue.isEmpty {
            let due = liveDue
            liveDue = []
            for command in due { perform(command) }
            takeSentAtOnce(deferPublish: true)
        }
    }

    /// Tells the model of the messages that went at once (`.liveSent`), which may send the next.
    func takeSentAtOnce(deferPublish: Bool) {
        while !liveSentAtOnce.isEmpty {
            apply(.liveSent(link: liveSentAtOnce.removeFirst()), deferPublish: deferPublish)
        }
    }

    /// Carries out the live session's commands.
    func performLive(_ command: AppCommand) {
        switch command {
        case .openLive(let activityID, let leads, let mayTake):
            openLive(activityID: activityID, leads: leads, mayTake: mayTake)
        case .liveSend(let link, let message):
            guard let live = liveLinks[link] else { return }
            // A change is tens to hundreds of bytes: sent from here when it can go at once, it
            // costs no trip through the sender's task and back (strace of a followed 16 MB editor:
            // ten futex calls a key more than unfollowed, most of them that trip). A whole state is
            // encoded by the sender, off the main actor; so is anything behind one.
            if case .state = message {
                live.queued.count.add(1, ordering: .sequentiallyConsistent)
                live.outbox.yield(.message(message))
                return
            }
            let bytes = message.bytes
            if live.queued.count.load(ordering: .sequentiallyConsistent) == 0, live.stream.sendAtOnce(bytes) {
                liveSentAtOnce.append(link)
            } else {
                live.queued.count.add(1, ordering: .sequentiallyConsistent)
                live.outbox.yield(.bytes(bytes))
            }
        case .liveClose(let link):
            // The stream closes once what was asked before is sent; a run that ends meanwhile
            // waits for that (`closeLiveLinks`), so a leader's last change and its CLOSE go out.
            guard let closing = liveLinks.removeValue(forKey: link) else { return }
            closing.outbox.finish()
            closingLiveLinks.append(closing)
        default:
            break
        }
    }

    /// Opens a stream to where the continued session came from (`activityID` nil) or to a
    /// nearby activity, sends the opener's hello, and tells the model.
    private func openLive(activityID: String?, leads: Bool, mayTake: Bool) {
        let source: NearbyActivity?
        if let activityID {
            center.takeInHeard()
            source = center.nearby.first { $0.id == activityID }
            guard let source else {
                inbox.yield(.liveOpenFailed("That activity is no longer nearby."))
                return
            }
            if let advice = Self.shellAdvice(source) { return inbox.yield(.liveOpenFailed(advice)) }
        } else {
            source = nil
            guard lastContinued != nil else {
                inbox.yield(.liveOpenFailed("nothing was continued"))
                return
            }
        }
        let continued = lastContinued
        let task = Task { [weak self, center, inbox, logger] in
            do {
                let stream: ContinuationStream
                if let source {
                    stream = try await center.openContinuationStream(to: source)
                } else {
                    stream = try await continued!.continuationStream()
                }
                let hello = LiveMessage.hello(
                    leads: leads, activityID: leads ? self?.activity?.activityID : nil, mayTake: mayTake,
                    peerName: center.configuration.peer.name)
                try await stream.send(hello.bytes)
                let name = PeerText.visible(source?.record.peer.name ?? continued?.peer?.name ?? stream.peer.name)
                guard let self else { return await stream.close() }
                let link = self.register(stream)
                logger.info("live session with \(name) open (link \(link), \(leads ? "leading" : "following"))")
                inbox.yield(.liveOpened(link: link, peerName: name, opener: true))
                self.startReading(link)
            } catch {
                let reason = (error as? HandoffError)?.description ?? "\(error)"
                logger.info("no live session: \(reason)")
                inbox.yield(.liveOpenFailed(reason, retry: Self.mayRetry(error)))
            }
        }
        tasks.append(task)
    }

    /// What to say of a shell session chosen in the nearby list, which this app does not show:
    /// the command that does. Nil for any other activity.
    static func shellAdvice(_ entry: NearbyActivity) -> String? {
        guard entry.record.activityType == "dev.baton.shell" else { return nil }
        let from = PeerText.visible(entry.record.peer.name)
        return "A shell session shows in a terminal of its own: quit, then run baton --continue-activity dev.baton.shell --from \(from) (or baton follow dev.baton.shell --from \(from))."
    }

    /// Whether opening may work in a moment: no connection yet, or the source busy.
    static func mayRetry(_ error: any Error) -> Bool {
        guard case .continuationStream(_, let failure)? = error as? HandoffError else { return false }
        switch failure {
        case .unreachable, .busy, .lost: return true
        default: return false
        }
    }

    /// A stream another machine opened to this program's activity.
    func acceptLive(_ stream: ContinuationStream) {
        let link = register(stream)
        logger.info("live session opened by \(PeerText.visible(stream.peer.name)) (link \(link))")
        inbox.yield(.liveOpened(link: link, peerName: PeerText.visible(stream.peer.name), opener: false))
        startReading(link)
    }

    /// Numbers `stream` and starts its sender.
    private func register(_ stream: ContinuationStream) -> Int {
        nextLiveLink += 1
        let link = nextLiveLink
        let (outbox, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        let queued = Queued()
        // Off the main actor: a whole 16 MB state is written as a property list here, not between two keys.
        let sender = Task.detached { [inbox, logger] in
            for await outgoing in outbox {
                let bytes: [UInt8]
                switch outgoing {
                case .message(let message): bytes = message.bytes
                case .bytes(let encoded): bytes = encoded
                }
                do {
                    try await stream.send(bytes)
                } catch {
                    logger.info("live link \(link): sending failed: \(error)")
                    break
                }
                queued.count.subtract(1, ordering: .sequentiallyConsistent)
                inbox.yield(.liveSent(link: link))
            }
            await stream.close()
        }
        liveLinks[link] = LiveLink(stream: stream, outbox: continuation, queued: queued, sender: sender)
        return link
    }

    private func startReading(_ link: Int) {
        guard let live = liveLinks[link] else { return }
        let reading = LiveReading(link: link, stream: live.stream, inbox: inbox, logger: logger)
        liveLinks[link]?.reading = reading
        reading.start()
    }

    /// At the end of the run: every link sends what it was asked, then closes; a link whose
    /// other end does not take it (a follower that stopped reading) is closed at `limit`, so
    /// quitting never waits for it.
    func closeLiveLinks(within limit: Duration = .seconds(2)) async {
        let links = Array(liveLinks.values) + closingLiveLinks
        liveLinks.removeAll()
        closingLiveLinks.removeAll()
        for link in links { link.outbox.finish() }
        let closer = Task { [clock] in
            try? await clock.sleep(for: limit)
            guard !Task.isCancelled else { return }
            // Closing fails a send that waits for credit, and so ends its sender.
            for link in links { await link.stream.close() }
        }
        for link in links { await link.sender.value }
        closer.cancel()
    }
}

extension AppMessage {
    /// The message's case, for the log (never its contents: peers' text stays out of logs).
    var kindName: String {
        switch self {
        case .liveOpened: "liveOpened"
        case .liveReceived(_, let message): "liveReceived(\(message.kindName))"
        case .liveEnded(_, let problem): "liveEnded(\(problem ?? "closed"))"
        case .liveOpenFailed(let reason, _): "liveOpenFailed(\(reason))"
        default: "message"
        }
    }
}

extension LiveMessage {
    var kindName: String {
        switch self {
        case .hello(let leads, _, _, _): leads ? "hello leading" : "hello following"
        case .state: "state"
        case .change: "change"
        case .take: "take"
        case .given: "given"
        case .resync: "resync"
        case .moved: "moved"
        }
    }
}
