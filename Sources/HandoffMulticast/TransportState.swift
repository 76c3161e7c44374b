import Handoff
import Synchronization

/// What a `MulticastTransport` shares across threads: the handler datagrams go to, whether it
/// is closed, the counts, and the status of its paths as last worked out on its event loop.
final class TransportState: Sendable {
    private struct Fields {
        var handler: TransportHandler?
        var isClosed = false
        var statistics = MulticastStatistics()
        var status = TransportStatus()
        var interfaceName: String?
    }

    private let fields = Mutex(Fields())

    var handler: TransportHandler? { fields.withLock { $0.handler } }
    var isClosed: Bool { fields.withLock { $0.isClosed } }
    var statistics: MulticastStatistics { fields.withLock { $0.statistics } }
    var status: TransportStatus { fields.withLock { $0.status } }
    var interfaceName: String? { fields.withLock { $0.interfaceName } }

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

    func learnt() {
        fields.withLock { $0.statistics.peersLearnt += 1 }
    }

    func reopened() {
        fields.withLock { $0.statistics.socketsReopened += 1 }
    }

    /// Records the status; returns the handler to tell when it changed.
    func update(_ status: TransportStatus, interfaceName: String?) -> TransportHandler? {
        fields.withLock { f in
            f.interfaceName = interfaceName
            guard f.status != status else { return nil }
            f.status = status
            return f.handler
        }
    }
}
