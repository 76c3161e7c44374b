import Foundation
import Handoff
import HandoffWire

/// Fixed values the fuzz targets and the seed generator share, so that seeds sealed by
/// `MakeSeeds` open in the targets. The same values as the tests' `Fixtures`.
enum FuzzFixtures {
    /// The group key every target seals and opens with: bytes 0…31.
    static let key = GroupKey(bytes: Array(0..<32))!
    /// The one device every sender of the datagram target is, and the fuzz center's own:
    /// the group key's shared device (`StreamIdentity.sharedByGroupKey`), as in the tests.
    static let device = StreamIdentity.sharedByGroupKey(key).device
    /// The shared device's tag, what every sender id of the datagram target starts with.
    static let tag = DeviceTag(device.publicIdentity.deviceID)
    /// The sender of sealed inputs: the shared device with the instance A8…AF (the tests' `Fixtures.sender`).
    static let sender = SenderID(tag: tag, instance: Array(0xA8...0xAF))!
    /// The shared device with the instance 8 × `byte`.
    static func sender(_ byte: UInt8) -> SenderID { SenderID(tag: tag, instance: Array(repeating: byte, count: 8))! }
    /// The version 3 codec of `key`.
    static func codec() -> DatagramCodec { DatagramCodec(keys: GroupKeys(current: key)) }
    /// The listed device with `tag`: the shared device is the only one listed (steps 5 and 10).
    static func listed(_ tag: DeviceTag) -> PublicIdentity? { tag == Self.tag ? device.publicIdentity : nil }
    /// The receiver's clock; seeds carry it as `sentAt`, so no input is refused for clock skew by accident.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let peer = PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0")
    /// Stands for the fuzz center's own current activity ID (a random UUID of the same length),
    /// which the datagram target substitutes before sealing, so a CONTINUED can name it. It is
    /// itself UUID-shaped, so that receivers take it where no substitution is made.
    static let currentActivityPlaceholder = "F0220000-C0DE-4000-8000-00000000C0DE"

    /// The kind an input's kind byte names: 1…6 as on the wire, anything else folded onto them.
    static func kind(_ byte: UInt8) -> DatagramKind {
        DatagramKind(rawValue: byte) ?? DatagramKind.allCases[Int(byte) % DatagramKind.allCases.count]
    }
}
