import Foundation
import Testing
@testable import Handoff
@testable import HandoffWire

/// Step 16 as a value: who owns each activity, and what a claim about it comes to.
@Suite("ActivityOwnership: one rule for ANNOUNCE, OFFER and WITHDRAW")
struct ActivityOwnershipTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let id = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"
    static let alice = Fixtures.sender(0xA1)
    static let bob = Fixtures.sender(0xB0)
    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
    static func publish(_ revision: Int, digest byte: UInt8 = 1) -> ActivityOwnership.Claim {
        .publish(revision: revision, digest: RecordDigest(bytes: Array(repeating: byte, count: 32)), offer: nil)
    }

    @Test("News, then a plain repeat, then another sender's claim is notOwner until the owner withdraws")
    func ownerUntilWithdrawn() {
        var ownership = ActivityOwnership(limit: 16, lifetime: 120)
        #expect(ownership.claim(Self.publish(1), activityID: Self.id, by: Self.alice, sequence: 1, now: Self.at(0)) == .news)
        #expect(ownership.claim(Self.publish(1), activityID: Self.id, by: Self.alice, sequence: 2, now: Self.at(1)) == .refresh)
        #expect(ownership.claim(Self.publish(2), activityID: Self.id, by: Self.bob, sequence: 1, now: Self.at(1.1)) == .notOwner)
        #expect(ownership.claim(.withdraw, activityID: Self.id, by: Self.bob, sequence: 2, now: Self.at(1.2)) == .notOwner)
        #expect(ownership.claim(.withdraw, activityID: Self.id, by: Self.alice, sequence: 3, now: Self.at(1.3)) == .news)
        #expect(ownership.claim(Self.publish(5), activityID: Self.id, by: Self.bob, sequence: 3, now: Self.at(1.4)) == .news)
    }

    @Test("Late datagrams change nothing, whichever kind overtook which; a lower revision is stale")
    func lateAndOlder() {
        var ownership = ActivityOwnership(limit: 16, lifetime: 120)
        #expect(ownership.claim(.withdraw, activityID: Self.id, by: Self.alice, sequence: 9, now: Self.at(0)) == .news)
        #expect(ownership.claim(Self.publish(3), activityID: Self.id, by: Self.alice, sequence: 8, now: Self.at(0.1)) == .stale)
        #expect(ownership.claim(Self.publish(3), activityID: Self.id, by: Self.alice, sequence: 10, now: Self.at(0.2)) == .news)
        #expect(ownership.claim(.withdraw, activityID: Self.id, by: Self.alice, sequence: 7, now: Self.at(0.3)) == .stale)
        #expect(ownership.claim(Self.publish(2, digest: 2), activityID: Self.id, by: Self.alice, sequence: 11, now: Self.at(0.4)) == .stale)
    }

    @Test("A repeat after 1.5 s of silence is news again; an activity is forgotten after its lifetime")
    func silenceAndLifetime() {
        var ownership = ActivityOwnership(limit: 16, lifetime: 120)
        #expect(ownership.claim(Self.publish(1), activityID: Self.id, by: Self.alice, sequence: 1, now: Self.at(0)) == .news)
        #expect(ownership.claim(Self.publish(1), activityID: Self.id, by: Self.alice, sequence: 2, now: Self.at(1.5)) == .news)
        #expect(ownership.claim(Self.publish(1), activityID: Self.id, by: Self.bob, sequence: 1, now: Self.at(121.6)) == .news)
    }

    @Test("Full, a newcomer makes room by forgetting the half heard least recently")
    func makesRoom() {
        var ownership = ActivityOwnership(limit: 4, lifetime: 120)
        for n in 0..<4 {
            _ = ownership.claim(Self.publish(1), activityID: "A\(n)", by: Self.alice, sequence: UInt64(n + 1), now: Self.at(Double(n)))
        }
        #expect(ownership.count == 4)
        #expect(ownership.claim(Self.publish(1), activityID: "B", by: Self.alice, sequence: 9, now: Self.at(5)) == .news)
        #expect(ownership.count == 3)
        // A0 is forgotten: another sender may claim it; A3 is still alice's.
        #expect(ownership.claim(Self.publish(1), activityID: "A0", by: Self.bob, sequence: 1, now: Self.at(6)) == .news)
        #expect(ownership.claim(Self.publish(2), activityID: "A3", by: Self.bob, sequence: 2, now: Self.at(6)) == .notOwner)
    }
}

/// When the main actor is woken for what the gate queued.
@Suite("WakePolicy: news at once or at the frame's end, the rest lazily")
struct WakePolicyTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("One wake-up on its way serves everything queued until the intake")
    func oneWakeServes() {
        var policy = WakePolicy(frame: 0)
        #expect(policy.lazy() == .soon)
        #expect(policy.lazy() == nil)
        #expect(policy.urgent(now: Self.t0, news: true) == .now, "news does not wait for a lazy wake-up")
        #expect(policy.urgent(now: Self.t0, news: false) == nil)
        #expect(policy.lazy() == nil)
        policy.taken(at: Self.t0)
        #expect(policy.urgent(now: Self.t0, news: true) == .now, "without a frame, news goes at once")
    }

    @Test("With a frame, news within it waits for its end; a QUERY or DEVICES does not; nor does news while a find waits")
    func frame() {
        var policy = WakePolicy(frame: 5)
        #expect(policy.frame == WakePolicy.lazyDelay.seconds, "a frame is at most the lazy delay")
        policy.taken(at: Self.t0)
        let end = Self.t0.addingTimeInterval(policy.frame)
        #expect(policy.urgent(now: Self.t0.addingTimeInterval(0.1), news: true) == .at(end))
        #expect(policy.urgent(now: Self.t0.addingTimeInterval(0.2), news: true) == nil)
        #expect(policy.lazy() == nil, "the frame's wake-up comes no later")
        #expect(policy.urgent(now: Self.t0.addingTimeInterval(0.2), news: false) == .now)
        policy.taken(at: Self.t0.addingTimeInterval(0.2))
        policy.holdsNews = false
        #expect(policy.urgent(now: Self.t0.addingTimeInterval(0.3), news: true) == .now)
    }
}
