import Crypto
import Foundation
@testable import Handoff
@testable import HandoffWire

/// Shared values for Handoff tests.
enum Fixtures {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let otherKey = GroupKey(bytes: Array(100..<132))!
    /// The one device every center of these tests is (`Membership.sharedDevice(of: key)`).
    static let device = StreamIdentity.sharedByGroupKey(key).device
    /// Another sender of that device, as a peer that is not the center under test.
    static let sender = SenderID(tag: DeviceTag(device.publicIdentity.deviceID), instance: Array(0xA8...0xAF))!
    /// A sender of that device whose instance is 8 × `byte`.
    static func sender(_ byte: UInt8) -> SenderID {
        SenderID(tag: DeviceTag(device.publicIdentity.deviceID), instance: Array(repeating: byte, count: 8))!
    }
    /// The version 3 codec for `key`, and `decode` with the shared device listed.
    static func codec(_ key: GroupKey = key) -> DatagramCodec { DatagramCodec(keys: GroupKeys(current: key)) }
    static func decode(_ bytes: [UInt8], key: GroupKey = key, now: Date) throws(RejectionReason) -> DecodedDatagram {
        try codec(key).decode(bytes, now: now) { _ in device.publicIdentity }
    }
    /// A receive gate of a center that is the shared device, as `own`.
    static func gate(own: SenderID = sender(1), limits: PeerDirectory.Limits = .init()) -> ReceiveGate {
        ReceiveGate(membership: .sharedDevice(of: key), allowedClockSkew: 60, ownSender: own, limits: limits)
    }
    /// A new sender of that device.
    static func randomSender() -> SenderID { SenderID.random(device: device.publicIdentity.deviceID) }
    static let nonce: [UInt8] = Array(0xC0...0xCB)
    static let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let peer = PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0")

    static let registry = ActivityTypeRegistry(
        declaredTypes: ["dev.baton.counter", "dev.baton.editing", "dev.baton.shell"],
        schemas: [
            "dev.baton.counter": ActivitySchema(keyTypes: ["count": .integer], requiredKeys: ["count"]),
            "dev.baton.editing": ActivitySchema(
                keyTypes: ["text": .string, "cursorLine": .integer, "cursorColumn": .integer, "fileName": .string,
                    "lineEnding": .string, "undoHistory": .array, "markLine": .integer, "markColumn": .integer,
                    "searchText": .string, "searchCaseSensitive": .boolean, "searchRegexp": .boolean,
                    "lineNumbers": .boolean, "softWrap": .boolean, "constantShow": .boolean],
                requiredKeys: ["text", "cursorLine", "cursorColumn"]),
            "dev.baton.shell": ActivitySchema(
                keyTypes: ["folder": .string, "command": .string, "rows": .integer, "columns": .integer],
                requiredKeys: ["folder", "command", "rows", "columns"]),
        ])

    static func counterRecord(count: Int, revision: Int = 1, id: String = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11") -> ActivityRecord {
        ActivityRecord(
            activityID: id, activityType: "dev.baton.counter", revision: revision,
            savedAt: sentAt.addingTimeInterval(-0.25), userInfo: ["count": .integer(count)], title: "Counting",
            peer: peer)
    }

    /// `message` sealed as `sender` would, signed by `identity` (the shared device by default).
    /// Built by hand rather than by `DatagramCodec`, which refuses to sign a sender id of another
    /// device: so that a test can forge what a key holder without that identity would send.
    static func seal(
        _ message: HandoffMessage, key: GroupKey = key, sender: SenderID = sender, sequence: UInt64, sentAt: Date = Date(),
        identity: DeviceIdentity = device
    ) -> [UInt8] {
        let header = DatagramHeader(kind: message.kind, keyID: key.keyID, senderID: sender, sequence: sequence)
        let headerBytes = header.bytes
        let payload = DatagramCodec.plaintext(message, sentAt: sentAt)
        let signature = identity.sign(OpenedDatagram.signedBytes(header: headerBytes, payload: payload))
        let senderKey = SenderKeys().key(for: sender, groupKey: key, keyID: key.keyID)
        let box = try! ChaChaPoly.seal(
            signature + payload, using: SymmetricKey(data: senderKey), nonce: ChaChaPoly.Nonce(data: header.nonce),
            authenticating: headerBytes)
        return headerBytes + Array(box.ciphertext) + Array(box.tag)
    }
}

/// Virtual time for the engines' tests: readings on one line, where the instant and the date
/// move together from `t0`.
enum VirtualTime {
    /// The start of every test's time: the golden date, at an instant taken once.
    static let t0 = ClockReading(instant: .now, date: Date(timeIntervalSince1970: 1_800_000_000))

    /// `seconds` after `t0` (before, when negative), to the microsecond.
    static func at(_ seconds: Double) -> ClockReading {
        t0.advanced(by: .microseconds(Int64((seconds * 1e6).rounded())))
    }

    /// The reading at which the date is `date`.
    static func reading(_ date: Date) -> ClockReading {
        at(date.timeIntervalSince(t0.date))
    }

    /// An instant as seconds after `t0`, to the microsecond.
    static func seconds(_ instant: ContinuousClock.Instant) -> Double {
        ((instant - t0.instant).seconds * 1e6).rounded() / 1e6
    }
}
