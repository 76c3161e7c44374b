import Handoff
import Synchronization

/// What a `MulticastTransport` shares with its channel handler across threads: the handler
/// datagrams go to, whether it is closed, and the counts.
final class TransportState: Sendable {
    private struct Fields {
        var handler: TransportHandler?
        var isClosed = false
        var statistics = MulticastStatistics()
    }

    private let fields = Mutex(Fields())

    var handler: TransportHandler? { fields.withLock { $0.handler } }
    var isClosed: Bool { fields.withLock { $0.isClosed } }
    var statistics: MulticastStatistics { fields.withLock { $0.statistics } }

    func install(_ handler: TransportHandler) {
        fields.withLock { $0.handler = handler }
    }

    /// Marks the transport closed; true for the call that closed it.
    func close() -> Bool {
        fields.withLock { f in
            defer {
                f.isClosed = true
                f.handler = nil
            }
            return !f.isClosed
        }
    }

    /// Counts one datagram read and returns the handler to give it to, if any.
    func received() -> TransportHandler? {
        fields.withLock { f in
            f.statistics.received += 1
            if f.handler == nil { f.statistics.discarded += 1 }
            return f.handler
        }
    }

    func sent() {
        fields.withLock { $0.statistics.sent += 1 }
    }

    func sentUnicast() {
        fields.withLock { $0.statistics.unicastSent += 1 }
    }
}
