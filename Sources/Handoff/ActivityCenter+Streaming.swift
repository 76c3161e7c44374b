import FoundationEssentials
import Crypto
import Synchronization
import PropertyList
import HandoffWire

/// What a center needs of the state stream: the shelf its server serves from, the TCP port
/// peers reach it on, and a dialer for fetching from others. The server itself runs beside
/// the center (`TCPStateServer` in HandoffMulticast, or `InMemoryStreams` in tests), started
/// on `shelf` before the center publishes anything large.
public struct StateStreamSetup: Sendable {
    public var shelf: StateShelf
    public var port: Int
    public var dialer: any StreamDialer

    public init(shelf: StateShelf, port: Int, dialer: any StreamDialer) {
        self.shelf = shelf
        self.port = port
        self.dialer = dialer
    }
}

/// Fetching a large activity's record before it is continued.
extension ActivityCenter {
    /// The record behind an OFFER, fetched from its source and checked: the whole state,
    /// its digest, and an ANNOUNCE payload of the same activity, type and revision.
    func fetchRecord(
        _ nearby: NearbyActivity, offer: StateOffer, progress: @escaping @MainActor (TransferProgress) -> Void
    ) async throws(HandoffError) -> ActivityRecord {
        let described = nearby.record
        let peer = described.peer.name
        guard let stream = stateStream else {
            throw .transferFailed(peer: peer, reason: "this program runs without the state stream that large activities need")
        }
        guard offer.size <= configuration.stateLimit else {
            throw .stateTooLarge(bytes: offer.size, limit: configuration.stateLimit)
        }
        guard let host = nearby.sourceHost else {
            throw .transferFailed(peer: peer, reason: "its network address is unknown")
        }
        let request = StateRequest(
            activityID: described.activityID, revision: described.revision, digest: offer.digest, size: offer.size)
        // Taken only from the device that offered it: the OFFER's sender, as the list knows it now.
        guard let offerer = membership.device(for: nearby.senderID.tag) else {
            throw .transferFailed(peer: peer, reason: "its device is no longer on this machine's list")
        }
        let fetcher = bus.stateFetcher(stream, maximumSize: configuration.stateLimit)
        let source = StreamSource(senderID: nearby.senderID, identity: offerer)
        let clock = clock
        let started = clock.now
        let gate = ProgressGate(clock: clock)
        let report: @Sendable (Int, Int) -> Void = { received, resumes in
            guard gate.isDue(last: received == offer.size) else { return }
            let update = TransferProgress(
                activityID: described.activityID, peerName: peer, received: received, total: offer.size,
                elapsed: clock.now - started, resumes: resumes)
            Task { @MainActor in progress(update) }
        }
        logger.info("fetching \(offer.size) bytes of \(PeerText.visible(described.activityID)) from \(host):\(offer.port)")
        let limit = configuration.stateLimit
        let outcome: Result<ActivityRecord, HandoffError> = await Task.detached {
            // Off the main actor: the bytes arrive, are hashed and decoded here.
            do throws(StreamFailure) {
                let state = try await fetcher.fetch(
                    from: host, port: offer.port, source: source, request: request, progress: report)
                return Self.record(from: state, limit: limit, matching: described)
            } catch {
                return .failure(Self.fetchFailure(error, peer: peer, host: host, port: offer.port))
            }
        }.valueCancellingWith()
        switch outcome {
        case .success(let record):
            logger.info("fetched \(PeerText.visible(described.activityID)) revision \(record.revision)")
            return record
        case .failure(let error):
            logger.warning("fetching \(PeerText.visible(described.activityID)) failed: \(error)")
            throw error
        }
    }

    /// What a failed fetch from `host:port` is to a person. A source whose state stream never
    /// brought a byte over TCP is named by its port: that port is what a firewall between the
    /// machines must let through (it is any free port unless the source fixes it with a stream
    /// port of its own), so the message says which one to open.
    nonisolated static func fetchFailure(_ failure: StreamFailure, peer: String, host: String, port: Int) -> HandoffError {
        switch failure {
        case .cancelled:
            return .cancelled
        case .gaveUp(let connections, 0, _, let lastReason) where !host.hasPrefix("relay:"):
            return .transferFailed(
                peer: peer,
                reason: "its state stream, TCP port \(port) on \(host), did not answer "
                    + "(\(connections) connections in a row brought no data; last: \(lastReason)). "
                    + "If it still runs, open TCP port \(port) to that machine (e.g. `sudo ufw allow \(port)/tcp` there), "
                    + "or start baton there with `--stream-port PORT` and open that port")
        default:
            return .transferFailed(peer: peer, reason: failure.description)
        }
    }

    /// Reads a fetched state (the ANNOUNCE payload it encodes) and checks it is the one offered.
    nonisolated static func record(from state: [UInt8], limit: Int, matching described: ActivityRecord)
        -> Result<ActivityRecord, HandoffError>
    {
        let peer = described.peer.name
        guard case .dictionary(let payload)? = try? BinaryPropertyListReader(limits: .init(maxBytes: limit)).read(state),
            case .announce(let record)? = try? HandoffMessage.decode(kind: .announce, payload: payload).message
        else {
            return .failure(.transferFailed(peer: peer, reason: "what arrived is not a valid activity record"))
        }
        guard record.activityID == described.activityID, record.activityType == described.activityType,
            record.revision == described.revision
        else {
            return .failure(.transferFailed(peer: peer, reason: "what arrived is another activity or revision than offered"))
        }
        return .success(record)
    }
}

extension NearbyActivity {
    /// The address the last datagram came from, without its port (`10.77.0.11`); a source
    /// without a port (an in-memory network's peer name) is the host itself, and so is a relay's
    /// (`relay:` and the sender's topic id, which only the relay's dialer reaches).
    var sourceHost: String? { source.flatMap(Self.host(of:)) }

    /// The host of a datagram's source address, as `sourceHost` gives it.
    static func host(of source: String) -> String? {
        if source.hasPrefix("relay:") { return source }
        let host = source.lastIndex(of: ":").map { source[..<$0] } ?? source[...]
        let trimmed = host.trimmed { "[]".contains($0) }
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension Task where Failure == Never {
    /// The task's value; cancelling the waiting task cancels this one.
    func valueCancellingWith() async -> Success {
        await withTaskCancellationHandler { await value } onCancel: { cancel() }
    }
}

/// Lets through the fetcher's first report, then one every 15 ms at most, and always the last:
/// a DATA frame is 64 KiB, so a fast fetch has thousands a second, each of which would be a
/// task on the main actor.
private final class ProgressGate: Sendable {
    private let lastReport = Mutex<ContinuousClock.Instant?>(nil)
    private let clock: any HandoffClock

    init(clock: any HandoffClock) {
        self.clock = clock
    }

    func isDue(last: Bool) -> Bool {
        let now = clock.now
        return lastReport.withLock { previous in
            if !last, let previous, now - previous < .milliseconds(15) { return false }
            previous = now
            return true
        }
    }
}

extension DatagramBus {
    /// A fetcher of states over `stream`, as this bus's device and sender, of at most
    /// `maximumSize` bytes.
    func stateFetcher(_ stream: StateStreamSetup, maximumSize: Int) -> StateFetcher {
        var limits = StateFetcher.Limits()
        limits.maximumSize = maximumSize
        return StateFetcher(
            identity: membership.streamIdentity(senderID: senderID), groupKey: membership.keys.current,
            dialer: stream.dialer, clock: clock, limits: limits)
    }
}
