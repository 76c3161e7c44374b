import BatonApp
import BatonRuntime
import Foundation
@testable import Handoff
import Testing

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
