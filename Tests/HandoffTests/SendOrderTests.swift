import Foundation
import Synchronization
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// A sender writes its datagrams in the order their sequences were given (PROTOCOL.md section 2).
@MainActor
@Suite("Send order")
struct SendOrderTests {
    /// What a listener on the in-memory network heard from the sender, in arrival order (the
    /// network keeps send order): each datagram's sequence and, for an ANNOUNCE, its revision.
    final class Heard: Sendable {
        private let list = Mutex<[(sequence: UInt64, revision: Int?)]>([])
        func add(_ entry: (sequence: UInt64, revision: Int?)) { list.withLock { $0.append(entry) } }
        var all: [(sequence: UInt64, revision: Int?)] { list.withLock { $0 } }
    }

    func listen(on network: InMemoryNetwork, clock: ManualClock) -> Heard {
        let heard = Heard()
        network.makeTransport(name: "listener").start(TransportHandler(receive: { datagram in
            guard let decoded = try? Fixtures.decode(datagram.bytes, now: clock.date) else { return }
            heard.add((decoded.header.sequence, decoded.message.published?.record.revision))
        }))
        return heard
    }

    @Test("A save due with a repeat of the old revision: the repeat, numbered first, is written first")
    func repeatBeforeTheSaveThatFollowsIt() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let heard = listen(on: network, clock: clock)
        let a = makeCenter(on: network, name: "alice@a", clock: clock) {
            $0.repeatInterval = .seconds(1)
            $0.burstRepeats = 0
        }
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 0]
        try activity.becomeCurrent()
        #expect(await waitUntil { heard.all.count == 1 })

        // The tick of `baton peer announce --tick`: the change comes just before the repeat is
        // due, and the timer that runs the save fires just after. One tick of the core then has
        // both the save and the repeat of revision 1 to do.
        clock.advance(by: .milliseconds(999))
        activity.userInfo["count"] = 1
        clock.advance(by: .milliseconds(1))
        #expect(await waitUntil { heard.all.count == 3 }, "\(heard.all)")

        let all = heard.all
        #expect(all.map(\.sequence) == [1, 2, 3], "written out of sequence order: \(all.map(\.sequence))")
        #expect(all.map(\.revision) == [1, 1, 2], "the old revision after the new: \(all.map(\.revision))")
        #expect(a.lastPublished?.revision == 2)
        await a.shutdown()
    }

    @Test("A WITHDRAW sent from a delegate while the center carries out a batch follows the datagrams numbered before it")
    func delegateSendsDuringABatch() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let heard = listen(on: network, clock: clock)
        let a = makeCenter(on: network, name: "alice@a", clock: clock) {
            $0.repeatInterval = .seconds(1)
            $0.burstRepeats = 0
        }
        let app = RecordingApp()
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.delegate = app
        activity.userInfo = ["count": 0]
        try activity.becomeCurrent()
        #expect(await waitUntil { heard.all.count == 1 })

        // While the hooks of the second save run, the app gives the activity up: WITHDRAW is
        // numbered after the repeat that the same tick numbered before the save.
        app.onWillSave = { activity in activity.resignCurrent() }
        clock.advance(by: .milliseconds(999))
        activity.userInfo["count"] = 1
        clock.advance(by: .milliseconds(1))
        #expect(await waitUntil { heard.all.count == 3 }, "\(heard.all)")
        let all = heard.all
        #expect(all.map(\.sequence) == [1, 2, 3], "written out of sequence order: \(all.map(\.sequence))")
        #expect(all.map(\.revision) == [1, 1, nil], "the repeat, then WITHDRAW: \(all.map(\.revision))")
        await a.shutdown()
    }
}
