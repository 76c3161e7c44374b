import Handoff

/// What goes wrong on one in-memory state-stream connection. Offsets count the bytes the
/// server sends on that connection, the ServerHello's first byte being 0.
public struct StreamFaults: Equatable, Sendable {
    /// The connection is refused: `connect` throws.
    public var refuse: Bool
    /// `connect` never returns (until the task is cancelled): a source that does not answer.
    public var hangConnect: Bool
    /// The server's bytes from this offset on never arrive: the connection ends there.
    public var cutAfter: Int?
    /// The server's byte at this offset arrives with its lowest bit flipped.
    public var flipAt: Int?
    /// The server's bytes from this offset on never arrive, and the connection stays open.
    public var stallAfter: Int?
    /// The most bytes one `read` returns, so frames arrive split across reads.
    public var readSize: Int

    public init(
        refuse: Bool = false, hangConnect: Bool = false, cutAfter: Int? = nil, flipAt: Int? = nil,
        stallAfter: Int? = nil, readSize: Int = 16_384
    ) {
        precondition(readSize >= 1, "a read returns at least one byte")
        self.refuse = refuse
        self.hangConnect = hangConnect
        self.cutAfter = cutAfter
        self.flipAt = flipAt
        self.stallAfter = stallAfter
        self.readSize = readSize
    }

    /// Every byte arrives, in reads of up to 16 KiB.
    public static let none = StreamFaults()
}

/// Why an in-memory connection could not be made or used.
public enum InMemoryStreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing serves this address, or its faults refuse the connection.
    case refused(host: String, port: Int)
    /// The connection was closed by this side.
    case closed

    public var description: String {
        switch self {
        case .refused(let host, let port): "connection to \(host):\(port) refused"
        case .closed: "the connection is closed"
        }
    }
}
