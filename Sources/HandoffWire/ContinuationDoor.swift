import Synchronization

/// One byte stream, both ways: what a continuation stream is carried on once its handshake is
/// done. The I/O modules make them (a TCP connection, a relay connection); `StreamConnection`
/// in Handoff is one.
public protocol StreamPipe: Sendable {
    /// Writes all of `bytes`, returning once the connection has taken them.
    func write(_ bytes: [UInt8]) async throws
    /// The next bytes that arrived (at least one), or nil at the end of the stream.
    func read() async throws -> [UInt8]?
    /// Closes the connection; later reads and writes fail. Closing twice does nothing.
    func close() async
    /// Writes `bytes` behind everything posted before, without waiting for it to go, and says
    /// whether it could; false: this pipe has no such write, and the caller uses `write`. A pipe
    /// that posts closes only after what was posted went out.
    func post(_ bytes: [UInt8]) -> Bool
    /// Hands what arrives to `receive` from the pipe's own thread as it arrives, one call at a
    /// time and in order: bytes, then nil at the end or the error that ended it; `read` is not
    /// used after. False: this pipe has no such delivery, and the caller reads.
    func deliver(to receive: @escaping @Sendable (Result<[UInt8]?, any Error>) -> Void) -> Bool
    /// The executor of the one thread that delivers what arrives and carries out posts (an event
    /// loop), when the pipe has one: work run on it hands a message on and sends the answer with
    /// no thread woken in between. Nil: no such thread.
    var executor: (any SerialExecutor)? { get }
}

extension StreamPipe {
    /// No posting: `write` it is.
    public func post(_ bytes: [UInt8]) -> Bool { false }
    /// No delivery: `read` it is.
    public func deliver(to receive: @escaping @Sendable (Result<[UInt8]?, any Error>) -> Void) -> Bool { false }
    /// No thread of its own.
    public var executor: (any SerialExecutor)? { nil }
}

/// Where a stream server hands the connections whose client sent OPEN: the program that
/// holds the activities decides (the activity center sets the handler). Shared through the
/// `StateShelf`, which every server of the program already serves.
public final class ContinuationDoor: Sendable {
    public typealias Handler = @Sendable (ContinuationOpening, any StreamPipe) -> Void
    private let handler = Mutex<Handler?>(nil)

    public init() {}

    /// Sets (or, with nil, removes) who takes the openings.
    public func setHandler(_ handler: Handler?) {
        self.handler.withLock { $0 = handler }
    }

    /// Hands `opening` on; false when nobody takes continuation streams here, and then the
    /// caller writes `opening.refusal` and closes.
    public func enter(_ opening: ContinuationOpening, pipe: any StreamPipe) -> Bool {
        guard let handler = handler.withLock({ $0 }) else { return false }
        handler(opening, pipe)
        return true
    }
}

extension ContinuationOpening {
    /// The sealed ERROR `04` (not supported) that refuses this opening, for a server without a handler.
    public mutating func refusal() -> [UInt8] {
        link.sealer.seal(ContinuationFrame.error(.notSupported, message: "this program takes no continuation streams").plaintext)
    }
}
