import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

@MainActor
@Suite("An activity's life")
struct ActivityLifeTests {
    struct EditingState: Codable, Equatable {
        var text: String
        var cursorLine: Int
        var cursorColumn: Int
        var fileName: String?
    }

    func center() -> ActivityCenter {
        ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: InMemoryNetwork().makeTransport(),
            configuration: .init(peer: Fixtures.peer))
    }

    @Test("userInfo set from a Codable value leaves nil optionals out and reads back equal")
    func codableUserInfo() throws {
        let activity = UserActivity(activityType: "dev.baton.editing", center: center())
        let state = EditingState(text: "héllo", cursorLine: 0, cursorColumn: 2, fileName: nil)
        try activity.setUserInfo(from: state)
        #expect(activity.userInfo == ["text": "héllo", "cursorLine": 0, "cursorColumn": 2])
        #expect(!activity.userInfo.values.contains(.string("$null")))
        #expect(try activity.userInfo(as: EditingState.self) == state)
        try Fixtures.registry.validate(type: "dev.baton.editing", userInfo: activity.userInfo)
        #expect(throws: EncodingError.self) { try activity.setUserInfo(from: [1, 2, 3]) }
    }

    @Test("An expired activity is refused on continue, and the application delegate hears why")
    func expiredIsRefused() throws {
        let receiver = center()
        let app = RecordingApp()
        receiver.applicationDelegate = app
        var record = Fixtures.counterRecord(count: 3)
        let expiry = Date().addingTimeInterval(-1)
        record.expiresAt = expiry
        receiver.receive(ReceivedDatagram(bytes: Fixtures.seal(.announce(record), sequence: 1)))
        let entry = try #require(receiver.nearby.first)
        #expect(receiver.continuable.isEmpty, "an expired activity is not offered")
        #expect(throws: HandoffError.expired(type: "dev.baton.counter", at: expiry)) {
            try receiver.continueActivity(entry)
        }
        #expect(app.log == ["willContinue", "didFail"])
        #expect(app.restored.isEmpty)
    }

    @Test("A flood of sender ids cannot grow the directory past its bounds")
    func directoryIsBounded() {
        var directory = PeerDirectory(limits: .init(maxSenders: 64, maxActivities: 16))
        var senders = SenderTable(limit: 64)
        let now = Date()
        var random = SplitMix64(seed: 9)
        for i in 0..<5_000 {
            let sender = SenderID(bytes: (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })!
            senders.accept(sender: sender, sequence: 1, source: nil, at: now.addingTimeInterval(Double(i) / 1000))
            _ = directory.announce(
                Fixtures.counterRecord(count: i, id: "id-\(i)"), from: sender, at: now.addingTimeInterval(Double(i) / 1000))
        }
        // Full tables make room a share at a time: never over the limit, never far below it.
        #expect((48...64).contains(senders.count), "\(senders.count) senders")
        #expect((8...16).contains(directory.activities.count), "\(directory.activities.count) activities")
        // The newest are kept: the last activity heard is there.
        #expect(directory["id-4999"] != nil)
    }

    @Test("A repeat taken in after later news never moves when an activity was last heard back in time")
    func lastHeardNeverGoesBack() {
        var directory = PeerDirectory()
        let sender = Fixtures.sender(2)
        let start = Date()
        let record = Fixtures.counterRecord(count: 1, id: "A")
        _ = directory.announce(record, from: sender, at: start.addingTimeInterval(2))
        _ = directory.announce(record, from: sender, at: start.addingTimeInterval(1))
        #expect(directory["A"]?.lastHeard == start.addingTimeInterval(2))
    }

    @Test("A peer heard again and again survives a flood of one-shot activities")
    func repeatingPeerSurvivesFlood() {
        var directory = PeerDirectory(limits: .init(maxSenders: 64, maxActivities: 16))
        let genuine = Fixtures.sender(1)
        let start = Date()
        _ = directory.announce(Fixtures.counterRecord(count: 1, id: "genuine"), from: genuine, at: start)
        _ = directory.announce(Fixtures.counterRecord(count: 1, id: "genuine"), from: genuine, at: start.addingTimeInterval(1))
        var random = SplitMix64(seed: 3)
        for i in 0..<10_000 {
            let sender = SenderID(bytes: (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })!
            _ = directory.announce(
                Fixtures.counterRecord(count: i, id: "flood-\(i)"), from: sender, at: start.addingTimeInterval(1 + Double(i) / 10_000))
        }
        #expect(directory["genuine"] != nil)
        #expect((8...16).contains(directory.activities.count), "\(directory.activities.count) activities")
        #expect(directory["flood-9999"] != nil, "the newest arrival is kept")
    }
}
