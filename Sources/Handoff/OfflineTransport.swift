import Synchronization

/// A transport that reaches nobody: what a session runs on when the network could not be
/// joined. Nothing arrives and nothing leaves; the session said why when it started, so
/// sends are dropped without a word (the first one reports `.offline(reason)`, no later one).
public final class OfflineTransport: ActivityTransport {
    /// Why there is no network, as the failed start said it.
    public let reason: String
    private struct State {
        var handler: TransportHandler?
        var dropped = 0
    }
    private let state = Mutex(State())

    public init(reason: String) {
        self.reason = reason
    }

    public var endpointDescription: String { "offline" }

    /// Datagrams handed to `send` and dropped.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    public func start(_ handler: TransportHandler) {
        state.withLock { $0.handler = handler }
    }

    public func send(_ bytes: [UInt8]) {
        let first: TransportHandler? = state.withLock { s in
            s.dropped += 1
            return s.dropped == 1 ? s.handler : nil
        }
        first?.sendFailed(.offline(reason: reason))
    }

    public func close() async {
        state.withLock { $0.handler = nil }
    }
}
