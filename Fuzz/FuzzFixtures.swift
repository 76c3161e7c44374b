import Foundation
import Handoff
import HandoffWire

/// Fixed values the fuzz targets and the seed generator share, so that seeds sealed by
/// `MakeSeeds` open in the targets. The same values as the tests' `Fixtures`.
enum FuzzFixtures {
    /// The group key every target seals and opens with: bytes 0…31.
    static let key = GroupKey(bytes: Array(0..<32))!
    /// The sender of sealed inputs: bytes A0…AF.
    static let sender = SenderID(bytes: Array(0xA0...0xAF))!
    /// The nonce of sealed inputs: bytes C0…CB.
    static let nonce: [UInt8] = Array(0xC0...0xCB)
    /// The receiver's clock; seeds carry it as `sentAt`, so no input is refused for clock skew by accident.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let peer = PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0")
    /// Stands for the fuzz center's own current activity ID (a random UUID of the same length),
    /// which the datagram target substitutes before sealing, so a CONTINUED can name it. It is
    /// itself UUID-shaped, so that receivers take it where no substitution is made.
    static let currentActivityPlaceholder = "F0220000-C0DE-4000-8000-00000000C0DE"

    /// The kind an input's kind byte names: 1…4 as on the wire, anything else folded onto them.
    static func kind(_ byte: UInt8) -> DatagramKind {
        DatagramKind(rawValue: byte) ?? DatagramKind.allCases[Int(byte) % DatagramKind.allCases.count]
    }
}
