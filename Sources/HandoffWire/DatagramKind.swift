import Foundation

/// The kind byte of a datagram (docs/PROTOCOL.md, "Datagram").
public enum DatagramKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case announce = 1
    case withdraw = 2
    case query = 3
    case continued = 4
    case offer = 5

    public var description: String {
        switch self {
        case .announce: "ANNOUNCE"
        case .withdraw: "WITHDRAW"
        case .query: "QUERY"
        case .continued: "CONTINUED"
        case .offer: "OFFER"
        }
    }
}

/// The 16 random bytes a peer picks once per process start.
public struct SenderID: Hashable, Sendable, CustomStringConvertible {
    /// Always 16 bytes.
    public let bytes: [UInt8]

    /// Wraps 16 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A fresh random sender id.
    public static func random() -> SenderID {
        var generator = SystemRandomNumberGenerator()
        return SenderID(bytes: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// The first 8 bytes in hex, enough to tell peers apart in logs.
    public var description: String { bytes.prefix(8).map { String(format: "%02x", $0) }.joined() }
}
