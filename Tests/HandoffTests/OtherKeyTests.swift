import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// Datagrams sealed with another group key: counted as `authenticationFailed`, and the
/// addresses they came from told once each, within a bound, however many arrive.
@Suite("Datagrams under another key")
struct OtherKeyTests {
    let now = Date()
    let record = Fixtures.counterRecord(count: 1, id: "0000000A-0000-4000-8000-000000000000")
    /// The one ANNOUNCE `foreign` sends, sealed with `Fixtures.otherKey` as sequence 1.
    let sealed: [UInt8]

    init() {
        sealed = Fixtures.seal(.announce(record), key: Fixtures.otherKey, sequence: 1, sentAt: now)
    }

    func gate() -> ReceiveGate {
        Fixtures.gate(own: Fixtures.sender(1), limits: .init())
    }

    /// An ANNOUNCE sealed with `Fixtures.otherKey`, from `source`. Sealed once; later sequences
    /// are written into its header, which the receiver refuses at the key id (step 5) before any
    /// tag or signature is checked, so the flood tests need not sign thousands of datagrams.
    func foreign(_ sequence: UInt64, from source: String?) -> ReceivedDatagram {
        var bytes = sealed
        for i in 0..<8 { bytes[26 + i] = UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64(i))) }
        return ReceivedDatagram(bytes: bytes, source: source)
    }

    @Test("The first datagram under another key from an address wakes the center lazily; more from it only count")
    func firstFromEachAddressWakes() {
        let gate = gate()
        #expect(gate.offer(foreign(1, from: "192.0.2.7:47788"), now: now) == .soon)
        for sequence in 2...500 { #expect(gate.offer(foreign(UInt64(sequence), from: "192.0.2.7:47788"), now: now) == nil) }
        var batch = gate.take(now: Date())
        #expect(batch.otherKeySources == ["192.0.2.7"])
        #expect(batch.statistics[.authenticationFailed] == 500)
        #expect(batch.arrivals.isEmpty && batch.refreshes.isEmpty)

        // Another port of the same address is the same machine; a new address is told once more.
        #expect(gate.offer(foreign(501, from: "192.0.2.7:50000"), now: now) == nil)
        #expect(gate.offer(foreign(502, from: "[2001:db8::5]:47788"), now: now) == .soon)
        batch = gate.take(now: Date())
        #expect(batch.otherKeySources == ["2001:db8::5"])
        #expect(gate.otherKeySources == ["192.0.2.7", "2001:db8::5"])
    }

    @Test("A flood from ever new addresses keeps only a few and wakes a bounded number of times")
    func floodIsBounded() async {
        let gate = gate()
        var wakes = 0
        for n in 0..<10_000 {
            let source = "10.\(n / 65_536).\(n / 256 % 256).\(n % 256):47788"
            if gate.offer(foreign(UInt64(n + 1), from: source), now: now) != nil { wakes += 1 }
            if n % 100 == 99 { _ = gate.take(now: Date()) }  // the center takes the queue now and then
            if n % 10 == 0 { await Task.yield() }  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
        }
        #expect(gate.otherKeySources.count == ReceiveGate.otherKeySourceLimit)
        #expect(wakes <= ReceiveGate.otherKeySourceLimit)
        #expect(wakes >= 1)
    }

    @Test("Other rejections, and datagrams without a source, are only counted")
    func otherRejectionsDoNotWake() {
        let gate = gate()
        #expect(gate.offer(ReceivedDatagram(bytes: [1, 2, 3], source: "192.0.2.9:47788"), now: now) == nil)
        #expect(gate.offer(foreign(1, from: nil), now: now) == nil)
        let batch = gate.take(now: Date())
        #expect(batch.otherKeySources.isEmpty)
        #expect(batch.statistics[.tooShort] == 1)
        #expect(batch.statistics[.authenticationFailed] == 1)
    }

    @Test("Addresses are kept without their port")
    func hosts() {
        #expect(ReceiveGate.host(of: "10.77.0.12:47788") == "10.77.0.12")
        #expect(ReceiveGate.host(of: "[fe80::1]:47788") == "fe80::1")
        #expect(ReceiveGate.host(of: "fe80::1") == "fe80::1")
        #expect(ReceiveGate.host(of: "peer-a") == "peer-a")
        #expect(ReceiveGate.host(of: "relay:0123456789abcdef") == "relay:0123456789abcdef")
    }

    @MainActor
    @Test("The center tells its listeners of each new address once, and counts every datagram")
    func centerTellsOnce() async {
        let network = InMemoryNetwork()
        let center = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: network.makeTransport(name: "bob"),
            configuration: .init(peer: Fixtures.peer), clock: ManualClock())
        let events = center.events()
        for sequence in 1...50 { center.receive(foreign(UInt64(sequence), from: "192.0.2.7:47788"), now: now) }
        center.receive(foreign(51, from: "192.0.2.8:47788"), now: now)
        #expect(center.statistics[.authenticationFailed] == 51)
        #expect(center.otherKeySources == ["192.0.2.7", "192.0.2.8"])
        await center.shutdown()
        var heard: [[String]] = []
        for await event in events {
            if case .otherKeyHeard(let sources) = event { heard.append(sources) }
        }
        #expect(heard == [["192.0.2.7"], ["192.0.2.8"]])
    }
}
