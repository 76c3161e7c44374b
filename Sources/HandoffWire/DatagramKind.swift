import FoundationEssentials

/// The kind byte of a datagram (docs/PROTOCOL.md, section 2).
public enum DatagramKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case announce = 1
    case withdraw = 2
    case query = 3
    case continued = 4
    case offer = 5
    /// Version 3 only: statements about the group's devices (section 17).
    case devices = 6
    /// Version 3 only: a key-value store's digests and entries (section 18).
    case store = 7

    public var description: String {
        switch self {
        case .announce: "ANNOUNCE"
        case .withdraw: "WITHDRAW"
        case .query: "QUERY"
        case .continued: "CONTINUED"
        case .offer: "OFFER"
        case .devices: "DEVICES"
        case .store: "STORE"
        }
    }
}

/// The first 8 bytes of a device id: what a version 3 sender id starts with, and how a receiver
/// finds the listed device that must have signed a datagram (docs/PROTOCOL.md, section 3).
public struct DeviceTag: Hashable, Sendable, CustomStringConvertible {
    public static let length = 8
    /// Always 8 bytes.
    public let bytes: [UInt8]

    /// Wraps 8 bytes; nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = Array(bytes)
    }

    /// The tag of a device.
    public init(_ device: DeviceID) { bytes = Array(device.bytes.prefix(Self.length)) }

    public var description: String { PlainText.hex(bytes) }
}

/// The 16 bytes that name a sender: in version 3 the device's tag (8) ‖ an instance (8) drawn
/// when the process starts; in version 2, 16 random bytes.
public struct SenderID: Hashable, Sendable, CustomStringConvertible {
    /// Always 16 bytes.
    public let bytes: [UInt8]

    /// Wraps 16 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A version 3 sender id: `tag` ‖ `instance`; nil unless `instance` is 8 bytes.
    public init?(tag: DeviceTag, instance: [UInt8]) {
        guard instance.count == 8 else { return nil }
        bytes = tag.bytes + instance
    }

    /// A version 3 sender id for a process of `device`: its tag and a fresh random instance.
    public static func random(device: DeviceID) -> SenderID {
        var generator = SystemRandomNumberGenerator()
        let instance = withUnsafeBytes(of: generator.next() as UInt64) { Array($0) }
        return SenderID(tag: DeviceTag(device), instance: instance)!
    }

    /// A fresh random sender id (version 2).
    public static func random() -> SenderID {
        var generator = SystemRandomNumberGenerator()
        return SenderID(bytes: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// The device tag: the first 8 bytes (version 3).
    public var tag: DeviceTag { DeviceTag(bytes: bytes[0..<8])! }

    /// The process's instance: the last 8 bytes (version 3).
    public var instance: [UInt8] { Array(bytes[8..<16]) }

    /// All 16 bytes in hex: the device's tag, then the instance, so that two programs of one
    /// device (or one restarted) are told apart in logs and in the monitor; its start is the
    /// device's fingerprint's.
    public var description: String { PlainText.hex(bytes) }
}
