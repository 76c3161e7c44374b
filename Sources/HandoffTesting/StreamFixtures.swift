import Crypto
import Handoff
import HandoffWire

/// Fixed inputs for tests of the state stream, shared by the wire's tests and the library's:
/// two devices (seeds `00…1f` and `20…3f`), their instances and fixed X25519 keys, the golden
/// group key, as `Vectors/golden/stream.json` has them; a shelf holding a state, and the two
/// machines made from these.
package enum StreamFixtures {
    package static let clientEphemeral: [UInt8] = Array(0xD0...0xEF)
    package static let serverEphemeral: [UInt8] = Array(0x10...0x2F)
    package static let client = StreamIdentity(device: DeviceIdentity(seed: Array(0x00...0x1F))!, instance: Array(0xB0...0xB7))
    package static let server = StreamIdentity(device: DeviceIdentity(seed: Array(0x20...0x3F))!, instance: Array(0xB8...0xBF))
    package static let activityID = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"
    /// The golden group key, `00 01 … 1f`.
    package static let groupKey = GroupKey(bytes: Array(0..<32))!

    /// Bytes that are not all alike, so a cut, shifted or swapped range cannot compare equal.
    package static func state(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return generator.bytes(count)
    }

    package static func digest(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// A shelf holding `state` as revision `revision` of `activityID`, and the request for it.
    package static func shelf(_ state: [UInt8], revision: Int = 3) -> (StateShelf, StateRequest) {
        let shelf = StateShelf()
        let digest = digest(state)
        shelf.put(activityID: activityID, revision: revision, digest: digest, bytes: state)
        return (shelf, StateRequest(activityID: activityID, revision: revision, digest: digest, size: state.count))
    }

    /// The server's trust: `keys` (the golden group key by default) and the client's device listed.
    package static func trust(
        _ keys: [GroupKey] = [groupKey], listing devices: [PublicIdentity] = [client.device.publicIdentity]
    ) -> StreamTrust {
        StreamTrust(groupKeys: keys, devices: devices)
    }

    /// The client machine with the fixed inputs, fetching from the fixed server.
    package static func clientMachine(
        _ request: StateRequest, offset: Int = 0, key: GroupKey = groupKey, identity: StreamIdentity = client,
        source: StreamSource = server.asSource
    ) -> StateClientConnection {
        StateClientConnection(
            identity: identity, groupKey: key, source: source, request: request, offset: offset,
            ephemeralKey: clientEphemeral)
    }

    /// The server machine with the fixed inputs.
    package static func serverMachine(
        _ shelf: StateShelf, trust: StreamTrust = trust(), identity: StreamIdentity = server,
        ephemeralKey: [UInt8] = serverEphemeral
    ) -> StateServerConnection {
        StateServerConnection(identity: identity, trust: trust, shelf: shelf, ephemeralKey: ephemeralKey)
    }
}
