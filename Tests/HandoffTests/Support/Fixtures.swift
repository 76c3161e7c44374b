import Foundation
@testable import Handoff
@testable import HandoffWire

/// Shared values for Handoff tests.
enum Fixtures {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let otherKey = GroupKey(bytes: Array(100..<132))!
    static let sender = SenderID(bytes: Array(0xA0...0xAF))!
    static let nonce: [UInt8] = Array(0xC0...0xCB)
    static let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let peer = PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0")

    static let registry = ActivityTypeRegistry(
        declaredTypes: ["dev.baton.counter", "dev.baton.editing"],
        schemas: [
            "dev.baton.counter": ActivitySchema(keyTypes: ["count": .integer], requiredKeys: ["count"]),
            "dev.baton.editing": ActivitySchema(
                keyTypes: ["text": .string, "cursorLine": .integer, "cursorColumn": .integer, "fileName": .string,
                    "lineEnding": .string, "undoHistory": .array],
                requiredKeys: ["text", "cursorLine", "cursorColumn"]),
        ])

    static func counterRecord(count: Int, revision: Int = 1, id: String = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11") -> ActivityRecord {
        ActivityRecord(
            activityID: id, activityType: "dev.baton.counter", revision: revision,
            savedAt: sentAt.addingTimeInterval(-0.25), userInfo: ["count": .integer(count)], title: "Counting",
            peer: peer)
    }

    static func seal(_ message: HandoffMessage, key: GroupKey = key, sender: SenderID = sender, sequence: UInt64, sentAt: Date = Date()) -> [UInt8] {
        try! DatagramCodecV2(groupKey: key).encode(message, senderID: sender, sequence: sequence, sentAt: sentAt)
    }
}
