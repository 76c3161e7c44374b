import Foundation
import Testing
@testable import Handoff
@testable import HandoffWire

/// The devices' gossip timing without I/O (docs/PROTOCOL.md section 17, "DEVICES"), driven
/// through minutes of protocol time synchronously.
@Suite("DevicesCore: when the statements kept go out")
struct DevicesCoreTests {
    static let t0 = VirtualTime.t0.instant
    static func at(_ seconds: Double) -> ContinuousClock.Instant { VirtualTime.at(seconds).instant }
    static let statements: [HandoffMessage] = [
        .devices(statements: [Array(repeating: 1, count: 64)], digest: Array(repeating: 2, count: 8))
    ]

    /// Seconds after `t0`, to the millisecond.
    static func seconds(_ instant: ContinuousClock.Instant) -> Double { ((instant - t0).seconds * 1000).rounded() / 1000 }

    static func core() -> DevicesCore {
        DevicesCore(interval: .seconds(30), answerSpacing: .seconds(1))
    }

    /// Ticks `core` at each deadline up to `end` (seconds after `t0`), calling `heard` with
    /// the core at each of `events`' times first; the times of every send, in seconds.
    static func run(
        _ core: inout DevicesCore, until end: Double, events: [Double] = [],
        _ heard: (inout DevicesCore, ContinuousClock.Instant) -> [DevicesCore.Action] = { _, _ in [] }
    ) -> [Double] {
        var sent: [Double] = []
        var pending = events.sorted()
        func record(_ actions: [DevicesCore.Action], at instant: ContinuousClock.Instant) {
            for case .send(let message) in actions {
                #expect(message == statements[0])
                sent.append(seconds(instant))
            }
        }
        while true {
            let deadline = core.nextDeadline
            let due = deadline.map(seconds)
            let event = pending.first
            guard let next = [due, event].compactMap({ $0 }).min(), next <= end else { break }
            if let event, event <= next {
                pending.removeFirst()
                record(heard(&core, at(event)), at: at(event))
            } else if let deadline {
                record(core.tick(now: deadline), at: deadline)
            }
        }
        return sent
    }

    @Test("At start, then every 30 s: 11 sends in five minutes, none between")
    func periodic() {
        var core = Self.core()
        #expect(core.nextDeadline == nil, "nothing before start")
        core.start(Self.statements, now: Self.t0)
        #expect(core.nextDeadline == Self.t0, "due at start")
        #expect(Self.run(&core, until: 300) == stride(from: 0.0, through: 300, by: 30).map { $0 })
    }

    @Test("A device that keeps no statement sends nothing in ten minutes")
    func nothingKept() {
        var core = Self.core()
        core.start([.devices(statements: [], digest: Array(repeating: 0, count: 8))], now: Self.t0)
        #expect(core.nextDeadline == nil)
        #expect(Self.run(&core, until: 600, events: [5, 100]) { core, now in core.differs(now: now) }.isEmpty)
    }

    @Test("A digest that differs is answered at once, but not within 1 s of a send: then 1 s after it")
    func answerSpacing() {
        var core = Self.core()
        core.start(Self.statements, now: Self.t0)
        // Sent at 0; a difference at 0.4 waits for 1.0; at 45 it is answered at once, which moves
        // the periodic send to 75; at 75.5 it waits for 76, which moves the next to 106.
        let sent = Self.run(&core, until: 140, events: [0.4, 45, 75.5]) { core, now in core.differs(now: now) }
        #expect(sent == [0, 1, 31, 45, 75, 76, 106, 136])
    }

    @Test("A change goes out at once, within the answer spacing too, and restarts the period")
    func changeGoesAtOnce() {
        var core = Self.core()
        core.start(Self.statements, now: Self.t0)
        _ = core.tick(now: Self.t0)
        #expect(core.changed(Self.statements, now: Self.at(0.2)) == [.send(Self.statements[0])])
        #expect(core.nextDeadline.map(Self.seconds) == 30.2)
        #expect(Self.run(&core, until: 120) == [30.2, 60.2, 90.2])
    }

    @Test("Nothing goes out before start nor after shutdown")
    func lifeBounds() {
        var core = Self.core()
        #expect(core.changed(Self.statements, now: Self.t0).isEmpty, "kept, but not sent before start")
        #expect(core.differs(now: Self.t0).isEmpty)
        core.start(Self.statements, now: Self.at(1))
        #expect(core.tick(now: Self.at(1)) == [.send(Self.statements[0])])
        core.shutdown()
        #expect(core.nextDeadline == nil)
        #expect(core.tick(now: Self.at(31)).isEmpty && core.differs(now: Self.at(40)).isEmpty)
        #expect(core.changed(Self.statements, now: Self.at(41)).isEmpty)
    }
}
