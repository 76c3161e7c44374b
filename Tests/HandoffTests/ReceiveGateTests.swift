import Foundation
import Synchronization
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// The part of receiving that runs off the main actor, and when it asks for the main actor.
@Suite("Receive gate")
struct ReceiveGateTests {
    let now = Date()
    let sender = Fixtures.sender(7)

    func gate(limits: PeerDirectory.Limits = .init()) -> ReceiveGate {
        Fixtures.gate(own: Fixtures.sender(1), limits: limits)
    }

    func datagram(_ message: HandoffMessage, sequence: UInt64, from sender: SenderID? = nil) -> ReceivedDatagram {
        let bytes = Fixtures.seal(message, sender: sender ?? self.sender, sequence: sequence, sentAt: now)
        return ReceivedDatagram(bytes: bytes, source: "192.0.2.7:47788")
    }

    @Test("A new revision asks for the main actor at once; repeats of it only lazily, once per batch")
    func repeatsWaitForTheNextBatch() {
        let gate = gate()
        let record = Fixtures.counterRecord(count: 1, id: "0000000A-0000-4000-8000-000000000000")
        #expect(gate.offer(datagram(.announce(record), sequence: 1), now: now) == .now)
        // Already asked: later arrivals ride on the same wake-up.
        #expect(gate.offer(datagram(.announce(record), sequence: 2), now: now) == nil)
        var batch = gate.take(now: Date())
        #expect(batch.arrivals.count == 1)
        #expect(batch.refreshes.keys.sorted() == ["0000000A-0000-4000-8000-000000000000"])
        #expect(batch.statistics.accepted == 2)

        #expect(gate.offer(datagram(.announce(record), sequence: 3), now: now + 0.5) == .soon)
        #expect(gate.offer(datagram(.announce(record), sequence: 4), now: now + 0.6) == nil)
        batch = gate.take(now: Date())
        #expect(batch.arrivals.isEmpty)
        #expect(batch.refreshes["0000000A-0000-4000-8000-000000000000"]?.at == now + 0.6, "the newest hearing is kept")

        var next = record
        next.revision += 1
        #expect(gate.offer(datagram(.announce(next), sequence: 5), now: now + 0.7) == .now)
        #expect(gate.take(now: Date()).arrivals.count == 1)
    }

    @Test("A repeat after a silence long enough that the activity may be forgotten is urgent")
    func repeatAfterSilenceIsUrgent() {
        let gate = gate()
        let record = Fixtures.counterRecord(count: 1, id: "0000000A-0000-4000-8000-000000000000")
        #expect(gate.offer(datagram(.announce(record), sequence: 1), now: now) == .now)
        _ = gate.take(now: Date())
        #expect(gate.offer(datagram(.announce(record), sequence: 2), now: now + 3.6) == .now)
    }

    @Test("Rejected, replayed and own datagrams are only counted: no wake-up")
    func rejectionsNeverWake() {
        let gate = gate()
        let record = Fixtures.counterRecord(count: 1, id: "0000000A-0000-4000-8000-000000000000")
        let first = datagram(.announce(record), sequence: 5)
        #expect(gate.offer(first, now: now) == .now)
        _ = gate.take(now: Date())
        #expect(gate.offer(first, now: now) == nil)
        #expect(gate.offer(ReceivedDatagram(bytes: [1, 2, 3]), now: now) == nil)
        var flipped = datagram(.announce(record), sequence: 6).bytes
        flipped[50] ^= 1
        #expect(gate.offer(ReceivedDatagram(bytes: flipped), now: now) == nil)
        let own = datagram(.announce(record), sequence: 1, from: Fixtures.sender(1))
        #expect(gate.offer(own, now: now) == nil)
        let batch = gate.take(now: Date())
        #expect(batch.arrivals.isEmpty && batch.refreshes.isEmpty)
        #expect(batch.statistics.duplicate == 1, "the accepted datagram again")
        #expect(batch.statistics.totalRejected == 2)
        #expect(batch.statistics[.tooShort] == 1)
        #expect(batch.statistics[.authenticationFailed] == 1)
        #expect(batch.statistics.own == 1)
        #expect(batch.statistics.accepted == 0)
    }

    @Test("After a WITHDRAW, the same revision announced again is news")
    func withdrawForgetsTheRevision() {
        let gate = gate()
        let record = Fixtures.counterRecord(count: 1, id: "0000000A-0000-4000-8000-000000000000")
        #expect(gate.offer(datagram(.announce(record), sequence: 1), now: now) == .now)
        _ = gate.take(now: Date())
        #expect(gate.offer(datagram(.withdraw(activityID: "0000000A-0000-4000-8000-000000000000"), sequence: 2), now: now) == .now)
        _ = gate.take(now: Date())
        #expect(gate.offer(datagram(.announce(record), sequence: 3), now: now) == .now)
        #expect(gate.take(now: Date()).arrivals.count == 1)
    }

    @Test("Replay state stays within the sender limit under a flood of sender ids")
    func senderStateIsBounded() {
        let gate = gate(limits: .init(maxSenders: 8, maxActivities: 4))
        var random = SplitMix64(seed: 3)
        for i in 0..<200 {
            let id = SenderID(tag: DeviceTag(Fixtures.device.publicIdentity.deviceID), instance: (0..<8).map { _ in UInt8(truncatingIfNeeded: random.next()) })!
            _ = gate.offer(datagram(.announce(Fixtures.counterRecord(count: i, id: String(format: "%08X-0000-4000-8000-000000000000", i))), sequence: 1, from: id), now: now)
        }
        let batch = gate.take(now: Date())
        #expect(batch.statistics.accepted == 200)
        #expect(batch.arrivals.count == 200, "every new activity is handed on; the directory bounds what it keeps")
    }
}

@Suite("Repeat schedule")
struct RepeatScheduleTests {
    func offsets(_ configuration: ActivityCenter.Configuration, sinceSave: Bool, until end: Duration) -> [Double] {
        var out: [Double] = []
        var elapsed = Duration.zero
        while true {
            elapsed = configuration.repeat(after: elapsed, sinceSave: sinceSave)
            guard elapsed <= end else { return out }
            out.append(elapsed.seconds)
        }
    }

    @Test("After a save: the plain repeat at 1 s, 11 more every 125 ms, then every second; at start-up, every second")
    func defaultSchedule() {
        let configuration = ActivityCenter.Configuration(peer: PeerInfo(name: "a", host: "h", app: "t", appVersion: "0"))
        let afterSave = offsets(configuration, sinceSave: true, until: .seconds(6))
        let burst = (0..<12).map { 1 + Double($0) * 0.125 }
        #expect(afterSave == burst + [3.375, 4.375, 5.375])
        // Sends within 2 s and 5 s of a save, the save included: what the loss targets rest on.
        #expect(1 + afterSave.filter { $0 < 1.9 }.count == 9)
        #expect(1 + afterSave.filter { $0 < 4.9 }.count == 15)
        // Nothing before the plain repeat: a revision replaced within a second costs one datagram.
        #expect(afterSave.first == 1)
        #expect(offsets(configuration, sinceSave: false, until: .seconds(3)) == [1, 2, 3])
    }

    @Test("No burst keeps to the plain repeat; a repeat interval shorter than the burst's wins")
    func plainSchedule() {
        var configuration = ActivityCenter.Configuration(peer: PeerInfo(name: "a", host: "h", app: "t", appVersion: "0"))
        configuration.burstRepeats = 0
        #expect(offsets(configuration, sinceSave: true, until: .seconds(3)) == [1, 2, 3])
        configuration.burstRepeats = 3
        configuration.repeatInterval = .milliseconds(50)
        #expect(offsets(configuration, sinceSave: true, until: .milliseconds(250)) == [0.05, 0.1, 0.15, 0.2, 0.25])
    }
}

@MainActor
@Suite("Repeats after a save")
struct BurstRepeatTests {
    @Test("A revision that stands is repeated in a burst, not only every repeat interval")
    func standingRevisionIsRepeatedInABurst() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let a = makeCenter(on: network, name: "alice@a", clock: clock) {
            $0.repeatInterval = .milliseconds(500)
            $0.burstInterval = .milliseconds(5)
            $0.burstRepeats = 20
        }
        let listener = network.makeTransport(name: "listener")
        let heard = Mutex<[Date]>([])
        listener.start(
            TransportHandler(receive: { datagram in
                if let decoded = try? Fixtures.decode(datagram.bytes, now: clock.date) {
                    heard.withLock { $0.append(decoded.sentAt) }
                }
            }))
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 1]
        try activity.becomeCurrent()
        #expect(await waitUntil { heard.withLock { $0.count } == 1 })
        // In virtual time: each step moves the clock to the center's next timer.
        var steps = 0
        while heard.withLock({ $0.count }) < 21, steps < 100 {
            steps += 1
            let before = heard.withLock { $0.count }
            if !(await step(clock)) { clock.advance(by: .milliseconds(5)) }
            _ = await waitUntil(timeout: .milliseconds(200)) { heard.withLock { $0.count } > before }
        }
        let times = heard.withLock { Array($0.prefix(21)) }
        try #require(times.count == 21)
        // The save, then the burst: 20 repeats that plain repeats would take 10 s to send.
        #expect(abs(times[1].timeIntervalSince(times[0]) - 0.5) < 1e-6, "the burst starts after the plain repeat interval")
        #expect(abs(times[20].timeIntervalSince(times[1]) - 19 * 0.005) < 1e-6, "the 20 repeats took \(times[20].timeIntervalSince(times[1])) s")
        #expect(a.saveCount == 1)
        await a.shutdown()
        await listener.close()
    }
}

/// A peer heard both by multicast and by `--peer` unicast delivers every datagram twice.
@Suite("Duplicates: the same datagram by multicast and by unicast")
struct DuplicateTests {
    let now = Date()
    let sender = Fixtures.sender(7)
    let address = "192.0.2.7:47788"

    func gate() -> ReceiveGate {
        Fixtures.gate(own: Fixtures.sender(1), limits: .init())
    }

    func datagram(_ message: HandoffMessage, sequence: UInt64, source: String? = nil) -> ReceivedDatagram {
        let bytes = Fixtures.seal(message, sender: sender, sequence: sequence, sentAt: now)
        return ReceivedDatagram(bytes: bytes, source: source ?? address)
    }

    @Test("Every datagram twice, in order: each handed on once, the copies counted as duplicate, no rejection")
    func twiceInOrder() {
        let gate = gate()
        let record = Fixtures.counterRecord(count: 1, id: "0000000A-0000-4000-8000-000000000000")
        var next = record
        next.revision = 2
        let messages: [HandoffMessage] = [.announce(record), .query(types: nil), .announce(next), .continued(activityID: record.activityID, peer: Fixtures.peer)]
        for (index, message) in messages.enumerated() {
            let copy = datagram(message, sequence: UInt64(index + 1))
            _ = gate.offer(copy, now: now)
            #expect(gate.offer(copy, now: now) == nil, "a duplicate never wakes the center")
        }
        let batch = gate.take(now: Date())
        #expect(batch.arrivals.count == 4, "each message once: \(batch.arrivals.map(\.message))")
        #expect(batch.statistics.accepted == 4)
        #expect(batch.statistics.duplicate == 4)
        #expect(batch.statistics.totalRejected == 0, "\(batch.statistics.rejected)")
    }

    @Test("The second copy may come after later datagrams, up to 63 sequences behind")
    func lateCopies() {
        let gate = gate()
        let copies = (1...64).map { datagram(.query(types: nil), sequence: UInt64($0)) }
        for copy in copies { _ = gate.offer(copy, now: now) }
        for copy in copies.dropFirst() { _ = gate.offer(copy, now: now) }
        var batch = gate.take(now: Date())
        #expect(batch.statistics.accepted == 64)
        #expect(batch.statistics.duplicate == 63)
        #expect(batch.statistics.totalRejected == 0)
        // After sequence 65, sequence 1 is 64 behind the highest: out of the window, a replay.
        _ = gate.offer(datagram(.query(types: nil), sequence: 65), now: now)
        _ = gate.offer(copies[0], now: now)
        _ = gate.offer(copies[1], now: now)
        batch = gate.take(now: Date())
        #expect(batch.statistics[.replay] == 1 && batch.statistics.duplicate == 1, "\(batch.statistics)")
    }

    @Test("A sequence overtaken and then heard is accepted (it was never accepted before), and a duplicate after that")
    func overtakenIsAccepted() {
        let gate = gate()
        _ = gate.offer(datagram(.query(types: nil), sequence: 1), now: now)
        _ = gate.offer(datagram(.query(types: nil), sequence: 3), now: now)
        _ = gate.offer(datagram(.query(types: nil), sequence: 2), now: now)
        _ = gate.offer(datagram(.query(types: nil), sequence: 2), now: now)
        let batch = gate.take(now: Date())
        #expect(batch.statistics.accepted == 3)
        #expect(batch.arrivals.count == 3, "the late QUERY is handed on too")
        #expect(batch.statistics[.replay] == 0)
        #expect(batch.statistics.duplicate == 1)
    }

    @Test("A copy from another address is a duplicate: no address is bound, the window decides")
    func otherAddress() {
        let gate = gate()
        let first = datagram(.query(types: nil), sequence: 1)
        _ = gate.offer(first, now: now)
        _ = gate.offer(ReceivedDatagram(bytes: first.bytes, source: "198.51.100.9:47788"), now: now)
        let batch = gate.take(now: Date())
        #expect(batch.statistics.accepted == 1)
        #expect(batch.statistics.duplicate == 1)
        #expect(batch.statistics.totalRejected == 0)
    }

    @Test("A datagram the gate refused (notOwner) is refused again, not counted as a duplicate")
    func refusedTwice() {
        let gate = gate()
        let record = Fixtures.counterRecord(count: 1, id: "0000000A-0000-4000-8000-000000000000")
        _ = gate.offer(datagram(.announce(record), sequence: 1), now: now)
        let other = Fixtures.sender(9)
        let hijack = ReceivedDatagram(
            bytes: Fixtures.seal(.announce(record), sender: other, sequence: 1, sentAt: now),
            source: "192.0.2.9:47788")
        _ = gate.offer(hijack, now: now)
        _ = gate.offer(hijack, now: now)
        let batch = gate.take(now: Date())
        #expect(batch.statistics[.notOwner] == 2)
        #expect(batch.statistics.duplicate == 0)
    }
}
