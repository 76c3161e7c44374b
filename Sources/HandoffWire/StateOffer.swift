/// Where and what to fetch when an activity's record is too large for one datagram: the
/// OFFER's `size`, `digest` and `port` (docs/PROTOCOL.md, "OFFER" and "The state stream").
public struct StateOffer: Equatable, Hashable, Sendable {
    /// Bytes of the record's encoding (the ANNOUNCE payload the datagram could not carry).
    public var size: Int
    /// SHA-256 of those bytes, 32 bytes.
    public var digest: [UInt8]
    /// The TCP port on the sender's address that serves them.
    public var port: Int

    public init(size: Int, digest: [UInt8], port: Int) {
        self.size = size
        self.digest = digest
        self.port = port
    }
}
