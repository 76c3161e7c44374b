import Foundation
import Synchronization
import Testing
@testable import Handoff
import HandoffTesting
import PropertyList
@testable import HandoffWire

/// A large state is encoded and hashed off the main actor (issue 23): one save in flight, the
/// newest state saved once after it, revisions sent in order (PROTOCOL.md section 8).
@MainActor
@Suite("Saving a large state off the main actor")
struct OffMainActorSaveTests {
    /// Holds every encoding before it starts until `open`, and notes what it was asked to encode.
    final class EncodingGate: Sendable {
        private struct State {
            var entered: [(revision: Int, n: Int)] = []
            var waiting: [CheckedContinuation<Void, Never>] = []
            var isOpen = false
        }
        private let state = Mutex(State())

        func enter(_ record: ActivityRecord) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s in
                    s.entered.append((record.revision, record.userInfo["cursorLine"]?.intValue ?? -1))
                    if s.isOpen { return true }
                    s.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        /// (revision, userInfo["cursorLine"]) of each encoding begun, in order.
        var entered: [(revision: Int, n: Int)] { state.withLock { $0.entered } }
        var heldCount: Int { state.withLock { $0.waiting.count } }

        func open() {
            let waiting = state.withLock { s in
                s.isOpen = true
                defer { s.waiting.removeAll() }
                return s.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// What a listener heard from the sender, in arrival order: sequence, kind and revision.
    final class Heard: Sendable {
        private let list = Mutex<[(sequence: UInt64, offer: Bool, revision: Int?)]>([])
        func add(_ entry: (sequence: UInt64, offer: Bool, revision: Int?)) { list.withLock { $0.append(entry) } }
        var all: [(sequence: UInt64, offer: Bool, revision: Int?)] { list.withLock { $0 } }
    }

    struct Fixture {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let shelf = StateShelf()
        let gate = EncodingGate()
        let heard = Heard()
        let center: ActivityCenter

        @MainActor
        init() {
            let heard = heard
            let clock = clock
            network.makeTransport(name: "listener").start(TransportHandler(receive: { datagram in
                guard let decoded = try? Fixtures.decode(datagram.bytes, now: clock.date) else { return }
                var offer = false
                if case .offer = decoded.message { offer = true }
                heard.add((decoded.header.sequence, offer, decoded.message.published?.record.revision))
            }))
            var config = ActivityCenter.Configuration(
                peer: PeerInfo(name: "alice@a", host: "alice.test", app: "baton-tests", appVersion: "0"))
            config.repeatInterval = .seconds(1)
            config.burstRepeats = 0
            config.saveWindow = .milliseconds(20)
            config.offMainActorStateSize = 1000
            center = ActivityCenter(
                registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: network.makeTransport(name: "alice@a"),
                configuration: config, clock: clock,
                stateStream: StateStreamSetup(shelf: shelf, port: 40_001, dialer: InMemoryStreams()))
            let gate = gate
            center.beforeEncoding = { await gate.enter($0) }
            center.start()
        }

        /// An editing session of 4 KB of text (over the datagram limit and the threshold).
        @MainActor
        func editing(n: Int) -> UserActivity {
            let activity = UserActivity(activityType: "dev.baton.editing", center: center)
            activity.userInfo = Self.userInfo(n: n)
            return activity
        }

        static func userInfo(n: Int) -> [String: PropertyListValue] {
            ["text": .string(String(repeating: "text\n", count: 800)), "cursorLine": .integer(n), "cursorColumn": 0,
             "fileName": "big.txt"]
        }
    }

    @Test("The main actor takes in a datagram while a large save's encoding is in flight, then the OFFER goes out")
    func mainActorGoesOnDuringEncoding() async throws {
        let f = Fixture()
        let activity = f.editing(n: 0)
        try activity.becomeCurrent()
        #expect(await waitUntil { f.gate.heldCount == 1 }, "the encoding never started")
        #expect(f.center.isEncoding)
        #expect(f.center.lastPublished == nil && f.heard.all.isEmpty, "published before its encoding was made")

        // The main actor is free: a peer's ANNOUNCE is received and listed meanwhile.
        let other = Fixtures.counterRecord(count: 7)
        let sealed = Fixtures.seal(.announce(other), sequence: 1, sentAt: f.clock.date)
        f.center.receive(ReceivedDatagram(bytes: sealed, source: "10.0.0.2"))
        #expect(f.center.nearby.map(\.id) == [other.activityID])
        #expect(f.center.isEncoding && f.heard.all.isEmpty, "the encoding is still held")

        f.gate.open()
        #expect(await waitUntil { f.center.lastPublished?.revision == 1 })
        #expect(await waitUntil { f.heard.all.count == 1 })
        #expect(f.heard.all.map(\.offer) == [true])
        #expect(f.heard.all.map(\.revision) == [1])
        #expect(f.shelf.revisions(of: activity.activityID) == [1])
        #expect(activity.revision == 1)
        #expect(!f.center.isEncoding)
        await f.center.shutdown()
    }

    @Test("Three changes during one encoding make exactly one more save, of the newest state, sent after it")
    func newestWins() async throws {
        let f = Fixture()
        let activity = f.editing(n: 0)
        try activity.becomeCurrent()
        #expect(await waitUntil { f.gate.heldCount == 1 })
        for n in 1...3 {
            f.clock.advance(by: .milliseconds(100))
            activity.userInfo["cursorLine"] = .integer(n)
            // The change leaves a save due, but no timer is set for it while the encoding runs.
            #expect(f.center.core.saveDue != nil)
            #expect(f.center.bus.timerDeadline.map { $0 > f.clock.now } ?? true, "a timer is set for a save while one is in flight")
        }
        f.clock.advance(by: .milliseconds(100))
        #expect(await waitUntil { f.clock.nextDeadline.map { $0 > f.clock.now } ?? true })
        #expect(f.center.saveCount == 1, "no save may start while one is in flight")
        #expect(f.gate.entered.map(\.n) == [0])

        f.gate.open()
        #expect(await waitUntil { f.center.lastPublished?.revision == 2 })
        #expect(await waitUntil { f.heard.all.count == 2 })
        #expect(f.center.saveCount == 2)
        #expect(f.gate.entered.map(\.n) == [0, 3], "the save after the one in flight has the newest state")
        #expect(f.gate.entered.map(\.revision) == [1, 2])
        #expect(f.center.lastPublished?.userInfo["cursorLine"] == 3)
        let heard = f.heard.all
        #expect(heard.map(\.revision) == [1, 2], "revisions out of order: \(heard.map(\.revision))")
        #expect(heard.map(\.sequence) == heard.map(\.sequence).sorted())
        #expect(f.shelf.revisions(of: activity.activityID) == [1, 2])
        #expect(f.center.core.saveDue == nil && !activity.needsSave, "a third save is pending")
        await f.center.shutdown()
    }

    @Test("An encoding in flight when its activity resigns sends nothing and shelves nothing")
    func resignedDuringEncoding() async throws {
        let f = Fixture()
        let activity = f.editing(n: 0)
        try activity.becomeCurrent()
        #expect(await waitUntil { f.gate.heldCount == 1 })
        activity.resignCurrent()
        #expect(!f.center.isEncoding)
        f.gate.open()
        // Once the detached task has handed its result back, nothing may come of it.
        #expect(await waitUntil { f.center.encodingsHandedBack == 1 })
        #expect(f.center.lastPublished == nil)
        #expect(f.heard.all.isEmpty, "sent for a save superseded in flight: \(f.heard.all)")
        #expect(f.shelf.activityIDs.isEmpty)
        #expect(activity.revision == 0)
        await f.center.shutdown()
    }

    @Test("A small state is still saved at once, on the main actor")
    func smallStaysSynchronous() async throws {
        let f = Fixture()
        let activity = UserActivity(activityType: "dev.baton.counter", center: f.center)
        activity.userInfo = ["count": 1]
        try activity.becomeCurrent()
        #expect(await waitUntil { f.center.lastPublished?.revision == 1 })
        #expect(f.gate.entered.isEmpty, "a small state went through the off-main-actor path")
        await f.center.shutdown()
    }

    @Test("The estimate counts strings and data without encoding")
    func estimate() {
        var record = Fixtures.counterRecord(count: 1)
        record.userInfo = ["text": .string(String(repeating: "é", count: 1000)), "d": .data(Data(count: 300))]
        #expect(record.estimatedStateSize >= 2300)
    }

    @Test("In the core: a save due while one is in flight waits for it, and a stale encoding is dropped")
    func coreInFlight() throws {
        let t0 = VirtualTime.t0
        func at(_ seconds: Double) -> ClockReading { VirtualTime.at(seconds) }
        var core = HandoffCoreOfferTests.core()
        let id = HandoffCoreOfferTests.id
        core.requestSave(activityID: id, now: t0)
        #expect(core.tick(now: t0) == [.save(activityID: id)])
        guard case .encode(let first, let token) = core.beginSave(HandoffCoreOfferTests.editing(characters: 5000), now: t0)
        else { Issue.record("the save did not start"); return }
        #expect(first.revision == 1)
        #expect(core.saveInFlight == token)

        core.requestSave(activityID: id, now: at(0.5))
        #expect(core.nextDeadline.map { $0 > at(0.5).instant } ?? true, "a save is due while one is in flight")
        #expect(!core.tick(now: at(0.5)).contains(.save(activityID: id)))

        let made = Result { () throws(HandoffError) in try HandoffCore.publication(for: first, core.configuration, port: core.streamPort) }
        #expect(core.encodingFinished(first, made, token: token &+ 1, now: at(0.6)) == [], "a stale token published")
        let actions = core.encodingFinished(first, made, token: token, now: at(0.6))
        #expect(actions.contains { if case .shelve(_, 1, _, _) = $0 { true } else { false } })
        #expect(actions.contains { if case .send(.offer, let sentAt) = $0 { sentAt == at(0.6).date } else { false } })
        #expect(core.saveInFlight == nil)
        #expect(core.nextDeadline == at(0.5).instant, "the save due meanwhile is due again")
        #expect(core.tick(now: at(0.6)).contains(.save(activityID: id)))
    }

    @Test("A shelved state is kept in a buffer of its size, not the writer's grown one")
    func trimmedState() {
        var bytes: [UInt8] = []
        for i in 0..<100_000 { bytes.append(UInt8(truncatingIfNeeded: i)) }
        let kept = HandoffCore.trimmed(bytes)
        #expect(kept == bytes)
        #expect(kept.capacity <= bytes.count + bytes.count / 16, "capacity \(kept.capacity) for \(bytes.count)")
    }

    @Test("In virtual time: the revision before the newest stays on the shelf through the next trim, and is gone by the one after")
    func supersededRevisionLetGo() async throws {
        let f = Fixture()
        f.gate.open()
        let start = f.clock.now
        let activity = f.editing(n: 0)
        try activity.becomeCurrent()
        let id = activity.activityID
        #expect(await waitUntil { f.shelf.revisions(of: id) == [1] })
        activity.userInfo["cursorLine"] = 1
        let saved = await waitUntil {
            if f.clock.now < start + .seconds(1) { f.clock.advance(by: .milliseconds(10)) }
            return f.shelf.revisions(of: id) == [1, 2]
        }
        #expect(saved, "no second revision")
        // The trim armed by the first save, 10 s after it: the one just superseded stays.
        f.clock.advance(to: start + StateShelf.supersededKeptFor + .milliseconds(1))
        #expect(await waitUntil { f.shelf.trimCount == 1 }, "no trim 10 s after the first save")
        #expect(f.shelf.revisions(of: id) == [1, 2])
        // Nobody asked for it since: the next trim lets it go.
        f.clock.advance(to: start + StateShelf.supersededKeptFor * 2 + .milliseconds(1))
        #expect(await waitUntil { f.shelf.trimCount == 2 }, "no trim 20 s after the first save")
        #expect(f.shelf.revisions(of: id) == [2], "the revision before the newest is still kept")
        await f.center.shutdown()
    }
}
