import BatonApp
import BatonRuntime
import Foundation
@testable import Handoff
import Testing
@testable import HandoffWire

@Suite("Nearby activities as items")
struct NearbyItemTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("A nearby activity becomes an item with its title, or one made from its state")
    func nearbyItem() {
        let peer = PeerInfo(name: "bob@desk", host: "desk", app: "baton", appVersion: "1")
        let saved = Self.now.addingTimeInterval(-3)
        var record = ActivityRecord(
            activityID: "A", activityType: "dev.baton.counter", revision: 2, savedAt: saved,
            userInfo: ["count": 5], title: nil, peer: peer)
        let untitled = NearbyItem(NearbyActivity(record: record, senderID: .random(), lastHeard: Self.now))
        #expect(untitled == NearbyItem(
            id: "A", activityType: "dev.baton.counter", title: "Counter: 5", peerName: "bob@desk",
            savedAt: saved, lastHeard: Self.now))
        #expect(untitled.age(at: Self.now) == "3s ago")
        record.title = "Counting sheep"
        #expect(NearbyItem(NearbyActivity(record: record, senderID: .random(), lastHeard: Self.now)).title == "Counting sheep")
        record.title = "  "
        record.activityType = "dev.example.other"
        #expect(NearbyItem(NearbyActivity(record: record, senderID: .random(), lastHeard: Self.now)).title == "dev.example.other")
    }
}

@Suite("Nearby items: peer text and look-alike names")
struct NearbyItemPeerTextTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let alice = SenderID(bytes: [0x3F, 0xA2] + Array(repeating: 0x11, count: 14))!
    static let eve = SenderID(bytes: [0x91, 0xC0] + Array(repeating: 0x22, count: 14))!
    static let bob = SenderID(bytes: Array(repeating: 0x33, count: 16))!

    static func activity(_ id: String, name: String, title: String?, sender: SenderID) -> NearbyActivity {
        let record = ActivityRecord(
            activityID: id, activityType: "dev.baton.counter", revision: 1, savedAt: now, userInfo: ["count": 1],
            title: title, peer: PeerInfo(name: name, host: "laptop", app: "baton", appVersion: "1"))
        return NearbyActivity(record: record, senderID: sender, lastHeard: now)
    }

    @Test("Title and peer name are made visible")
    func visible() {
        let item = NearbyItem(Self.activity("A", name: "bo\u{200B}b\u{1B}[2J", title: "Count\u{202E}ing\u{3164}", sender: Self.bob))
        #expect(item.title == "Count<U+202E>ing<U+3164>")
        #expect(item.peerName == "bo<U+200B>b␛[2J")
    }

    @Test("A name that imitates another sender's is told apart by the start of the sender IDs; others stay as they are")
    func lookAlikes() {
        let items = NearbyItem.items([
            Self.activity("A", name: "alice@laptop", title: "One", sender: Self.alice),
            Self.activity("B", name: "ALICE@laptop\u{2060}", title: "Two", sender: Self.eve),
            Self.activity("C", name: "bob@desk", title: "Three", sender: Self.bob),
            Self.activity("D", name: "alice@laptop", title: "Four", sender: Self.alice),
        ])
        #expect(items.map(\.peerName) == ["alice@laptop #3fa2", "ALICE@laptop<U+2060> #91c0", "bob@desk", "alice@laptop #3fa2"])
        #expect(items.map(\.title) == ["One", "Two", "Three", "Four"])
        #expect(NearbyItem.items([Self.activity("A", name: "alice@laptop", title: nil, sender: Self.alice)]).map(\.peerName)
            == ["alice@laptop"])
    }
}
