import Foundation
import Testing
@testable import Handoff
@testable import HandoffWire

/// The protocol rules in virtual time: `HandoffCore` takes the time as input, so these tests
/// walk through seconds of protocol time without waiting for any of it.
@Suite("The protocol core, in virtual time")
struct HandoffCoreTests {
    static let t0 = VirtualTime.t0
    static let id = Fixtures.counterRecord(count: 0).activityID

    static func core(_ configure: (inout ActivityCenter.Configuration) -> Void = { _ in }) -> HandoffCore {
        var configuration = ActivityCenter.Configuration(peer: Fixtures.peer, senderID: Fixtures.sender)
        configure(&configuration)
        var core = HandoffCore(configuration: configuration, registry: Fixtures.registry, seed: 1)
        core.start(now: t0)
        return core
    }

    static func at(_ seconds: Double) -> ClockReading { VirtualTime.at(seconds) }

    /// Makes the test's activity current and publishes its first save, all at `t0`.
    static func publish(_ core: inout HandoffCore) {
        _ = core.makeCurrent(activityID: id, isEligible: true, now: t0)
        core.requestSave(activityID: id, now: t0)
        _ = core.tick(now: t0)
        _ = core.saveFinished(hooked(count: 1, revision: 0), now: t0)
    }

    /// The record the save hooks left, as the center hands it to `saveFinished`.
    static func hooked(count: Int, revision: Int) -> ActivityRecord {
        Fixtures.counterRecord(count: count, revision: revision, id: id)
    }

    /// Ticks at every deadline up to `end`; the times of the ANNOUNCEs sent, as seconds from t0.
    static func announceTimes(_ core: inout HandoffCore, until end: Double) -> [Double] {
        var times: [Double] = []
        while let next = core.nextDeadline, next <= at(end).instant {
            for case .send(.announce, let sentAt) in core.tick(now: t0.at(next)) {
                times.append((sentAt.timeIntervalSince(t0.date) * 1000).rounded() / 1000)
            }
        }
        return times
    }

    @Test("The first change saves at once; changes that keep coming save once per window; the last is saved")
    func savesAreCoalesced() throws {
        var core = Self.core()
        _ = core.makeCurrent(activityID: Self.id, isEligible: true, now: Self.t0)
        var saves: [Double] = []
        // A change every millisecond for 200 ms.
        for ms in 0..<200 {
            let now = Self.at(Double(ms) / 1000)
            core.requestSave(activityID: Self.id, now: now)
            for case .save in core.tick(now: now) {
                saves.append(Double(ms))
                _ = core.saveFinished(Self.hooked(count: ms, revision: saves.count - 1), now: now)
            }
        }
        #expect(saves.first == 0)
        #expect(saves.count == 10, "saves at \(saves)")
        #expect(zip(saves, saves.dropFirst()).allSatisfy { $1 - $0 >= 20 })
        // The last change, at 199 ms, is saved when its window ends.
        let due = try #require(core.nextDeadline)
        #expect(due == Self.at(0.200).instant, "due at \(VirtualTime.seconds(due)) s")
        #expect(core.tick(now: Self.at(0.200)).contains(.save(activityID: Self.id)))
    }

    @Test("A saved revision is sent, then repeated at 1 s, then 11 times 125 ms apart, then every second")
    func repeatBurstSchedule() throws {
        var core = Self.core()
        _ = core.makeCurrent(activityID: Self.id, isEligible: true, now: Self.t0)
        core.requestSave(activityID: Self.id, now: Self.t0)
        #expect(core.tick(now: Self.t0) == [.save(activityID: Self.id)])
        let actions = core.saveFinished(Self.hooked(count: 5, revision: 0), now: Self.t0)
        let record = try #require(core.lastPublished)
        #expect(record.revision == 1)
        #expect(actions == [.send(.announce(record), at: Self.t0.date), .saved(record, published: true)])

        let burst = (0..<12).map { 1 + Double($0) * 0.125 }
        #expect(Self.announceTimes(&core, until: 5) == burst + [3.375, 4.375])
    }

    @Test("Without the burst, the current ANNOUNCE is repeated every second from the save")
    func plainRepeats() {
        var core = Self.core { $0.burstRepeats = 0 }
        Self.publish(&core)
        #expect(Self.announceTimes(&core, until: 3.5) == [1, 2, 3])
    }

    @Test("A peer's activity is forgotten 3.5 s after it was last heard, not before")
    func expiry() throws {
        var core = Self.core()
        var batch = BusDelivery()
        batch.arrivals = [
            .init(message: .announce(Fixtures.counterRecord(count: 1)), sender: Fixtures.sender, source: nil, at: Self.t0.date)
        ]
        #expect(core.receive(batch, now: Self.t0) == [.nearbyChanged])
        #expect(core.nextDeadline == Self.at(1.0).instant, "the next repeat of our own (none published) or the expiry")
        #expect(!core.tick(now: Self.at(3.499)).contains(.nearbyChanged))
        #expect(core.directory.activities.count == 1)
        #expect(core.tick(now: Self.at(3.5)).contains(.nearbyChanged))
        #expect(core.directory.isEmpty)
    }

    @Test("A QUERY is answered with the current ANNOUNCE within the answer delay, once while one is pending")
    func queryAnswer() throws {
        var core = Self.core()
        Self.publish(&core)
        var batch = BusDelivery()
        let other = SenderID(bytes: Array(0x10...0x1F))!
        batch.arrivals = [
            .init(message: .query(types: nil), sender: other, source: nil, at: Self.at(0.5).date),
            .init(message: .query(types: ["dev.baton.counter"]), sender: other, source: nil, at: Self.at(0.5).date),
        ]
        #expect(core.receive(batch, now: Self.at(0.5)).isEmpty)
        let due = try #require(core.nextDeadline)
        #expect(due >= Self.at(0.5).instant && due <= Self.at(0.520).instant)
        let answers = core.tick(now: Self.t0.at(due)).filter { if case .send(.announce, _) = $0 { true } else { false } }
        #expect(answers.count == 1)
    }

    @Test("find: gathers for the window after the QUERY, then picks the newest; nil at the deadline")
    func findGathersThenPicksNewest() throws {
        var core = Self.core()
        let actions = core.find(1, type: "dev.baton.counter", from: nil, timeout: .seconds(2), now: Self.t0)
        #expect(actions == [.send(.query(types: ["dev.baton.counter"]), at: Self.t0.date)])
        var older = Fixtures.counterRecord(count: 1, id: "00000000-0000-4000-8000-000000000001")
        older.savedAt = Self.at(-5).date
        var newer = Fixtures.counterRecord(count: 2, id: "00000000-0000-4000-8000-000000000002")
        newer.savedAt = Self.at(-1).date
        var batch = BusDelivery()
        batch.arrivals = [.init(message: .announce(older), sender: Fixtures.sender, source: nil, at: Self.at(0.010).date)]
        #expect(!core.receive(batch, now: Self.at(0.010)).contains { if case .found = $0 { true } else { false } })
        batch.arrivals = [
            .init(message: .announce(newer), sender: SenderID(bytes: Array(0x10...0x1F))!, source: nil, at: Self.at(0.020).date)
        ]
        _ = core.receive(batch, now: Self.at(0.020))
        #expect(core.nextDeadline == Self.at(0.030).instant)
        let found = core.tick(now: Self.at(0.030)).compactMap { if case .found(1, let entry) = $0 { entry } else { nil } }
        #expect(found.map(\.record.userInfo) == [["count": 2]])

        var empty = Self.core()
        _ = empty.find(2, type: nil, from: nil, timeout: .seconds(2), now: Self.t0)
        #expect(!empty.tick(now: Self.at(1.999)).contains { if case .found = $0 { true } else { false } })
        #expect(empty.tick(now: Self.at(2)).contains(.found(2, nil)))
    }

    @Test("find: while nothing is heard, the QUERY goes out again at 0.1, 0.3, 0.7 and 1.5 s; not once something is")
    func findAsksAgain() throws {
        var core = Self.core()
        _ = core.find(1, type: "dev.baton.counter", from: nil, timeout: .seconds(2), now: Self.t0)
        var queries: [Double] = []
        while let next = core.nextDeadline, next < Self.at(2).instant {
            for case .send(.query(let types), let at) in core.tick(now: Self.t0.at(next)) {
                #expect(types == ["dev.baton.counter"])
                queries.append((at.timeIntervalSince(Self.t0.date) * 1000).rounded() / 1000)
            }
        }
        #expect(queries == [0.1, 0.3, 0.7, 1.5])

        var heard = Self.core()
        _ = heard.find(2, type: nil, from: nil, timeout: .seconds(2), now: Self.t0)
        var batch = BusDelivery()
        batch.arrivals = [.init(message: .announce(Fixtures.counterRecord(count: 1)), sender: Fixtures.sender, source: nil, at: Self.at(0.05).date)]
        let actions = heard.receive(batch, now: Self.at(0.05))
        #expect(actions.contains { if case .found(2, _) = $0 { true } else { false } })
        #expect(!heard.tick(now: Self.at(0.2)).contains { if case .send(.query, _) = $0 { true } else { false } })
    }

    @Test("Resigning a published activity sends WITHDRAW and stops its repeats")
    func resignWithdraws() {
        var core = Self.core()
        Self.publish(&core)
        #expect(core.resign(activityID: Self.id, now: Self.at(0.5)) == [.send(.withdraw(activityID: Self.id), at: Self.at(0.5).date)])
        #expect(Self.announceTimes(&core, until: 5).isEmpty)
    }

    @Test("The wall clock set back an hour moves no timer: the repeats keep their times, stamped with the date it then reads")
    func wallClockSetBack() {
        var core = Self.core()
        Self.publish(&core)
        var steady = core
        let expected = Self.announceTimes(&steady, until: 10)
        var times: [Double] = []
        while let next = core.nextDeadline, next <= Self.at(10).instant {
            var now = Self.t0.at(next)
            now.date.addTimeInterval(-3600)
            for case .send(.announce, let sentAt) in core.tick(now: now) {
                #expect(sentAt == now.date)
                times.append((VirtualTime.seconds(next) * 1000).rounded() / 1000)
            }
        }
        #expect(expected.count >= 10, "\(expected)")
        #expect(times == expected)
    }

    @Test("Ten minutes of protocol time: one ANNOUNCE a second after the burst; a peer's activity listed while it repeats, forgotten 3.5 s after its last")
    func tenMinutes() {
        var core = Self.core()
        Self.publish(&core)
        let peer = SenderID(bytes: Array(0x10...0x1F))!
        let theirs = Fixtures.counterRecord(count: 7, id: "00000000-0000-4000-8000-000000000009")
        // The peer repeats its activity every second from 0.5 s to 299.5 s, then falls silent.
        var nextRepeat = 0.5
        var announces: [Double] = []
        var listed: [Double] = []
        var forgotten: [Double] = []
        while true {
            let due = core.nextDeadline.map(VirtualTime.seconds) ?? .infinity
            let next = min(due, nextRepeat <= 299.5 ? nextRepeat : .infinity)
            guard next <= 600 else { break }
            let now = Self.at(next)
            let actions: [HandoffCore.Action]
            if next == nextRepeat {
                var batch = BusDelivery()
                batch.arrivals = [.init(message: .announce(theirs), sender: peer, source: nil, at: now.date)]
                actions = core.receive(batch, now: now)
                nextRepeat += 1
            } else {
                actions = core.tick(now: now)
            }
            for case .send(.announce, _) in actions { announces.append(next) }
            if actions.contains(.nearbyChanged) {
                if core.directory.isEmpty { forgotten.append(next) } else { listed.append(next) }
            }
        }
        #expect(listed == [0.5], "listed once, by its first ANNOUNCE; repeats change nothing")
        #expect(forgotten == [303])
        let afterBurst = announces.filter { $0 > 3 }
        #expect(afterBurst.first == 3.375)
        #expect(afterBurst.count == 597, "one a second from 3.375 s to 599.375 s")
        #expect(zip(afterBurst, afterBurst.dropFirst()).allSatisfy { abs($1 - $0 - 1) < 1e-6 })
    }
}
