import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// `Configuration.newsFrame`: news of the directory wakes the main actor at most once a frame.
@Suite("News frame")
struct NewsFrameTests {
    let now = Date()
    let sender = Fixtures.sender(7)
    let id = "0000000A-0000-4000-8000-000000000000"

    func datagram(_ message: HandoffMessage, sequence: UInt64) -> ReceivedDatagram {
        ReceivedDatagram(bytes: Fixtures.seal(message, sender: sender, sequence: sequence, sentAt: now), source: "192.0.2.7:47788")
    }

    func gate(frame: TimeInterval) -> ReceiveGate {
        ReceiveGate(
            membership: .sharedDevice(of: Fixtures.key), allowedClockSkew: 60, ownSender: Fixtures.sender(1),
            limits: .init(), newsFrame: frame)
    }

    func counter(_ revision: Int) -> HandoffMessage {
        var record = Fixtures.counterRecord(count: revision, id: id)
        record.revision = revision
        return .announce(record)
    }

    @Test("News within a frame of the last hand-over waits for the frame's end; a QUERY does not; after a frame, news is taken at once")
    func newsWaitsForTheFrame() {
        let gate = self.gate(frame: 0.033)
        #expect(gate.offer(datagram(counter(1), sequence: 1), now: now) == .now, "nothing taken yet: at once")
        #expect(gate.take(now: now).arrivals.count == 1)

        #expect(gate.offer(datagram(counter(2), sequence: 2), now: now + 0.010) == .at(now + 0.033))
        #expect(gate.offer(datagram(counter(3), sequence: 3), now: now + 0.020) == nil, "the frame's wake-up serves it")
        #expect(gate.offer(datagram(.withdraw(activityID: id), sequence: 4), now: now + 0.021) == nil)
        #expect(gate.offer(datagram(.query(types: nil), sequence: 5), now: now + 0.025) == .now, "a QUERY is answered at once")
        #expect(gate.offer(datagram(.query(types: nil), sequence: 6), now: now + 0.026) == nil)
        let batch = gate.take(now: now + 0.026)
        #expect(batch.arrivals.count == 5, "\(batch.arrivals.map(\.message))")

        #expect(gate.offer(datagram(counter(7), sequence: 7), now: now + 0.050) == .at(now + 0.059))
        _ = gate.take(now: now + 0.059)
        #expect(gate.offer(datagram(counter(8), sequence: 8), now: now + 0.100) == .now, "a frame after the last hand-over")
    }

    @Test("A frame longer than the wait of plain repeats is taken as that wait, so repeats are never held longer")
    func frameIsBounded() {
        let gate = self.gate(frame: 5)
        #expect(gate.offer(datagram(counter(1), sequence: 1), now: now) == .now)
        _ = gate.take(now: now)
        #expect(gate.offer(datagram(counter(2), sequence: 2), now: now + 0.1) == .at(now + ReceiveGate.lazyDelay.seconds))
    }

    @Test("While the center waits for answers to a find, news is asked for at once, frame or not")
    func findsTakeNewsAtOnce() {
        let gate = self.gate(frame: 0.25)
        #expect(gate.offer(datagram(counter(1), sequence: 1), now: now) == .now)
        _ = gate.take(now: now)
        gate.holdsNews = false
        #expect(gate.offer(datagram(counter(2), sequence: 2), now: now + 0.01) == .now)
        _ = gate.take(now: now + 0.01)
        gate.holdsNews = true
        #expect(gate.offer(datagram(counter(3), sequence: 3), now: now + 0.02) == .at(now + 0.26))
    }

    @Test("Without a frame (the default) every piece of news asks at once")
    func noFrame() {
        let gate = Fixtures.gate(own: Fixtures.sender(1))
        #expect(gate.offer(datagram(counter(1), sequence: 1), now: now) == .now)
        _ = gate.take(now: now)
        #expect(gate.offer(datagram(counter(2), sequence: 2), now: now + 0.001) == .now)
    }

    @MainActor
    @Test("A center with a frame shows news held back only when its clock reaches the frame's end, in virtual time")
    func centerTakesNewsAtTheFrameEnd() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock(start: now)
        var configuration = ActivityCenter.Configuration(
            peer: PeerInfo(name: "bob@b", host: "b.test", app: "baton-tests", appVersion: "0"))
        configuration.newsFrame = .milliseconds(40)
        let b = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key),
            transport: network.makeTransport(name: "bob@b"), configuration: configuration, clock: clock)
        b.start()
        let wire = network.makeTransport(name: "wire")
        wire.start(TransportHandler(receive: { _ in }))
        func revision() -> Int? { b.directory[id]?.record.revision }

        wire.send(datagram(counter(1), sequence: 1).bytes)
        #expect(await waitUntil { revision() == 1 }, "the first news is taken at once")
        wire.send(datagram(counter(2), sequence: 2).bytes)
        #expect(await waitUntil { b.statistics.accepted == 2 }, "\(b.statistics)")
        #expect(revision() == 1, "held back until the frame ends")
        clock.advance(by: .milliseconds(39))
        #expect(revision() == 1)
        clock.advance(by: .milliseconds(1))
        #expect(await waitUntil { revision() == 2 }, "taken at the frame's end")
        // A continue from the nearby list takes in what a frame still holds first.
        wire.send(datagram(counter(3), sequence: 3).bytes)
        #expect(await waitUntil { b.statistics.accepted == 3 }, "\(b.statistics)")
        #expect(revision() == 2)
        b.takeInHeard()
        #expect(revision() == 3)
        await b.shutdown()
        await wire.close()
    }
}
