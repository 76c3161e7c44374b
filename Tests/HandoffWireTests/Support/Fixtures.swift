import Crypto
import Foundation
@testable import HandoffWire

/// The fixed inputs of the wire's vectors: the same values as `Fixtures` in HandoffTests
/// (the golden files were made from them), without the registry, which is the activity layer's.
enum Fixtures {
    static let key = GroupKey(bytes: Array(0..<32))!
    /// A group key other than `key`.
    static let otherKey = GroupKey(bytes: Array(100..<132))!
    static let sender = SenderID(bytes: Array(0xA0...0xAF))!
    static let nonce: [UInt8] = Array(0xC0...0xCB)
    static let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let peer = PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0")

    // Version 3.
    /// The sending device of the datagram vectors: identity seed `00 01 … 1f`.
    static let identity = DeviceIdentity(seed: Array(0..<32))!
    /// The sending process's instance, `a8 a9 … af`.
    static let instance: [UInt8] = Array(0xA8...0xAF)
    /// The sender id of the version 3 vectors: the identity's tag ‖ `instance`.
    static let sender3 = SenderID(tag: DeviceTag(identity.publicIdentity.deviceID), instance: instance)!
    /// The peer of the version 3 vectors: `peer` speaking protocol 3.
    static let peer3 = PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0", protocolVersion: 3)
    /// Other devices, by seed: `20 21 … 3f`, `40 41 … 5f`.
    static let bob = DeviceIdentity(seed: Array(0x20..<0x40))!
    static let carol = DeviceIdentity(seed: Array(0x40..<0x60))!
}
