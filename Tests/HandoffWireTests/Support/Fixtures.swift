import Crypto
import Foundation
@testable import HandoffWire

/// The fixed inputs of the wire's vectors: the same values as `Fixtures` in HandoffTests
/// (the golden files were made from them), without the registry, which is the activity layer's.
enum Fixtures {
    static let key = GroupKey(bytes: Array(0..<32))!
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

/// The state stream's fixed inputs and a shelf, as `StreamFixtures` in HandoffTests has them:
/// two devices (seeds `00…1f` and `20…3f`), their instances and the connection's fixed X25519 keys.
enum StreamFixtures {
    static let clientEphemeral: [UInt8] = Array(0xD0...0xEF)
    static let serverEphemeral: [UInt8] = Array(0x10...0x2F)
    static let client = StreamIdentity(device: DeviceIdentity(seed: Array(0x00...0x1F))!, instance: Array(0xB0...0xB7))
    static let server = StreamIdentity(device: DeviceIdentity(seed: Array(0x20...0x3F))!, instance: Array(0xB8...0xBF))
    static let activityID = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"

    static func digest(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// A shelf holding `state` as revision `revision` of `activityID`, and the request for it.
    static func shelf(_ state: [UInt8], revision: Int = 3) -> (StateShelf, StateRequest) {
        let shelf = StateShelf()
        let digest = digest(state)
        shelf.put(activityID: activityID, revision: revision, digest: digest, bytes: state)
        return (shelf, StateRequest(activityID: activityID, revision: revision, digest: digest, size: state.count))
    }

    /// The server's trust: the golden group key, and the client's device listed.
    static var trust: StreamTrust { StreamTrust(groupKeys: [Fixtures.key], devices: [client.device.publicIdentity]) }

    /// The client machine with the fixed inputs.
    static func clientMachine(_ request: StateRequest, key: GroupKey = Fixtures.key) -> StateClientConnection {
        StateClientConnection(
            identity: client, groupKey: key, source: server.asSource, request: request, offset: 0, ephemeralKey: clientEphemeral)
    }

    /// The server machine with the fixed inputs.
    static func serverMachine(_ shelf: StateShelf) -> StateServerConnection {
        StateServerConnection(identity: server, trust: trust, shelf: shelf, ephemeralKey: serverEphemeral)
    }
}
