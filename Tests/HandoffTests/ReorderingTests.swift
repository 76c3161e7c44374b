import Foundation
import Synchronization
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// A path that reorders (Wi-Fi, a unicast copy beside the multicast one, a relay) costs no
/// datagram: the window takes what was overtaken, and revisions keep the state in order.
@MainActor
@Suite("Reordering: the in-memory fault and the window")
struct ReorderingTests {
    /// Sends `count` numbered datagrams from one transport to another with `faults`; returns the
    /// numbers in arrival order once every datagram that is not still held back has arrived.
    func carry(_ count: Int, faults: FaultPlan) async -> (order: [Int], receiver: InMemoryTransport) {
        let network = InMemoryNetwork()
        let sender = network.makeTransport(name: "sender")
        let receiver = network.makeTransport(faults: faults, name: "receiver")
        let arrived = Arrived()
        receiver.start(TransportHandler(receive: { datagram in
            guard datagram.source == "sender" else { return }
            arrived.add(Int(datagram.bytes[0]) << 8 | Int(datagram.bytes[1]))
        }))
        for n in 0..<count { sender.send([UInt8(n >> 8), UInt8(n & 0xFF)]) }
        let settled = await waitUntil { arrived.order.count + receiver.heldBackCount == count }
        #expect(settled, "\(arrived.order.count) arrived, \(receiver.heldBackCount) held back")
        return (arrived.order, receiver)
    }

    @Test("The fault reorders within its depth, loses and doubles nothing, and repeats with its seed")
    func faultReorders() async {
        let faults = FaultPlan.reordering(rate: 0.3, depth: 8, seed: 11)
        let (order, receiver) = await carry(500, faults: faults)
        #expect(Set(order).count == order.count, "nothing doubled")
        #expect(order.count >= 500 - 8, "at most depth held back at the end")
        let inversions = zip(order, order.dropFirst()).filter { $0 > $1 }.count
        #expect(inversions > 50, "hardly reordered: \(inversions)")
        #expect(receiver.reorderedCount > 50)
        // Overtaken by several: some datagram arrives after one sent at least 3 later.
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        let deep = order.indices.contains { i in order[i] + 3 < 500 && (position[order[i] + 3] ?? .max) < i }
        #expect(deep, "no datagram was overtaken by three or more")
        // A held datagram waits for at most `depth` deliveries, with at most `depth` held at once:
        // none is overtaken by as many as the receiver's window of 64.
        for (i, n) in order.enumerated() {
            if let later = position[n + 64] { #expect(later > i, "\(n) arrived after \(n + 64)") }
        }

        let (again, _) = await carry(500, faults: faults)
        #expect(again == order, "the same seed gives the same order")
        let (other, _) = await carry(500, faults: .reordering(rate: 0.3, depth: 8, seed: 12))
        #expect(other != order)
    }

    @Test("Depth 1 keeps the old fault: one held back at a time, overtaken by the next datagram only")
    func depthOne() async {
        let (order, _) = await carry(300, faults: FaultPlan(reorderRate: 0.5, seed: 4))
        for (i, n) in order.enumerated() where i > 0 && order[i - 1] > n {
            #expect(order[i - 1] == n + 1, "\(n) overtaken by \(order[i - 1])")
        }
        #expect(zip(order, order.dropFirst()).contains { $0 > $1 })
    }

    @Test("A counter through a path that reorders by up to 8, in virtual time: nothing is a replay, and the receiver ends on the newest revision",
        arguments: [UInt64(1), 2, 3])
    func counterThroughReordering(seed: UInt64) async throws {
        let network = InMemoryNetwork()
        // The sender's clock drives the test: `step` moves it to the sender's next timer, and no
        // other center sleeps on it. The receiver's clock moves only when the test says so.
        let clock = ManualClock()
        let receiverClock = ManualClock(start: clock.date)
        let a = makeCenter(on: network, name: "alice@a", clock: clock) { $0.repeatInterval = .seconds(1) }
        let receiverTransport = network.makeTransport(faults: .reordering(rate: 0.4, depth: 8, seed: seed), name: "bob@b")
        let b = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: receiverTransport,
            configuration: .init(peer: PeerInfo(name: "bob@b", host: "b.test", app: "baton-tests", appVersion: "0")),
            clock: receiverClock)
        b.start()
        var seen: [Int] = []
        let events = b.events()
        let watcher = Task { @MainActor in
            for await event in events where event == .nearbyChanged {
                if let record = b.nearby.first?.record { seen.append(record.revision) }
            }
        }
        defer { watcher.cancel() }

        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 0]
        try activity.becomeCurrent()
        for i in 1...40 {
            clock.advance(by: .milliseconds(i % 4 == 0 ? 1_000 : 125))
            activity.userInfo["count"] = .integer(i)
            #expect(await waitUntil { a.lastPublished?.userInfo["count"] == .integer(i) }, "save \(i)")
        }
        // Repeats go on in virtual time (the burst, then every second); they release what is still
        // held back. At least 3 s of them, and on (up to 10 s) until the newest revision is in: a
        // busy machine may deliver the last of them after the sender's clock has moved on.
        let last = try #require(a.lastPublished)
        let start = clock.date
        func arrived() -> Bool { b.directory[last.activityID]?.record.revision == last.revision }
        while clock.date < start.addingTimeInterval(3) || (!arrived() && clock.date < start.addingTimeInterval(10)) {
            if !(await step(clock)) {
                // The sender's timer is re-armed by a task of its own: on a loaded machine it may
                // not have run yet. Nobody sleeping for 60 s of real time means nobody will.
                guard await waitUntil(timeout: .seconds(60), { clock.nextDeadline != nil }) else { break }
                continue
            }
            _ = await waitUntil(timeout: .milliseconds(50)) { arrived() }
        }
        #expect(await waitUntil { arrived() },
            "sent \(a.sentCount), \(receiverTransport.counts), held \(receiverTransport.heldBackCount)")
        #expect(b.directory[last.activityID]?.record.userInfo["count"] == 40)
        // Plain repeats reach the counters lazily, within `lazyDelay` of the receiver's clock.
        // One still on its way when the clock is moved here (a loaded run) sets a later intake:
        // the clock is moved to each such intake until every datagram delivered is counted (and
        // no further, or what the receiver holds would expire). No newer datagram is sent.
        receiverClock.advance(to: clock.date)
        func counted() -> Bool { b.statistics.accepted == receiverTransport.counts.delivered }
        #expect(await waitUntil {
            if !counted(), let due = receiverClock.nextDeadline, due <= receiverClock.now + ReceiveGate.lazyDelay {
                receiverClock.advance(to: due)
            }
            return counted()
        }, "\(b.statistics), \(receiverTransport.counts.delivered) delivered")

        #expect(receiverTransport.reorderedCount > 5, "hardly reordered: \(receiverTransport.reorderedCount)")
        #expect(b.statistics[.replay] == 0, "\(b.statistics)")
        #expect(b.statistics.totalRejected == 0, "\(b.statistics.rejected)")
        #expect(seen == seen.sorted(), "revisions seen out of order: \(seen)")
        await a.shutdown()
        await b.shutdown()
    }
}

/// Numbers in arrival order, written on the network's thread.
private final class Arrived: Sendable {
    private let numbers = Mutex<[Int]>([])
    func add(_ n: Int) { numbers.withLock { $0.append(n) } }
    var order: [Int] { numbers.withLock { $0 } }
}
