import Foundation
import Synchronization
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// "Every datagram duplicated three times and reordered; no state ever goes backwards."
///
/// `FaultPlan` duplicates at most once and holds back one datagram at a time, so it cannot say
/// this; `TripleShuffleTransport` below can: it delivers every datagram three times, through a
/// window from which a seeded generator picks what comes out next.
@MainActor
@Suite("Fault transport: every datagram three times, reordered")
struct FaultTransportTests {
    @Test("Fed to the receiving rules: 200 revisions, each datagram three times, shuffled in a window of 8 — never backwards, the last wins",
        arguments: [UInt64(1), 2, 3, 4, 5])
    func tripledAndShuffled(seed: UInt64) async throws {
        let center = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: InMemoryNetwork().makeTransport(name: "b"),
            configuration: ActivityCenter.Configuration(
                peer: PeerInfo(name: "bob@b", host: "b.test", app: "baton-tests", appVersion: "0")))
        let id = Fixtures.counterRecord(count: 0).activityID
        var sent: [[UInt8]] = []
        for revision in 1...200 {
            let record = Fixtures.counterRecord(count: revision, revision: revision, id: id)
            sent.append(Fixtures.seal(.announce(record), sequence: UInt64(revision)))
        }
        var shuffle = WindowShuffle<[UInt8]>(window: 8, seed: seed)
        var delivered: [[UInt8]] = []
        for datagram in sent {
            for _ in 0..<3 { delivered += shuffle.push(datagram) }
        }
        delivered += shuffle.drain()
        #expect(delivered.count == 600)

        let sequences = try delivered.map { try DatagramHeader(parsing: $0).sequence }
        let overtaken = zip(sequences, sequences.dropFirst()).filter { $0 > $1 }.count
        #expect(overtaken > 50, "the shuffle hardly reordered anything (\(overtaken) inversions)")

        var revisions: [Int] = []
        for (index, datagram) in delivered.enumerated() {
            if index % 10 == 0 { await Task.yield() }  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
            center.receive(ReceivedDatagram(bytes: datagram, source: "test"))
            if let revision = center.directory[id]?.record.revision {
                #expect(revision >= (revisions.last ?? 0), "revision \(revision) after \(revisions.last ?? 0)")
                revisions.append(revision)
            }
        }
        #expect(center.directory[id]?.record.revision == 200)
        #expect(center.directory[id]?.record.userInfo["count"] == 200)
        // A shuffle within 8 stays inside the window of 64: each datagram is taken once, however
        // late, and its other two copies are duplicates. Nothing is lost as a replay.
        #expect(center.statistics.accepted == 200)
        #expect(center.statistics.duplicate == 400)
        #expect(center.statistics.totalRejected == 0, "\(center.statistics.rejected)")
    }

    @Test("Live: a ticking counter through a transport that delivers everything three times, shuffled — converges, never backwards",
        arguments: [UInt64(7), 8, 9])
    func liveThroughTripleShuffle(seed: UInt64) async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "alice@a")
        let transport = TripleShuffleTransport(wrapping: network.makeTransport(name: "bob@b"), copies: 3, window: 6, seed: seed)
        var configuration = ActivityCenter.Configuration(
            peer: PeerInfo(name: "bob@b", host: "b.test", app: "baton-tests", appVersion: "0"))
        configuration.repeatInterval = .milliseconds(50)
        let b = ActivityCenter(registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: transport, configuration: configuration)
        b.start()

        let result = try await tickCounter(on: a, watchedBy: b)
        let seen = result.seen
        #expect(result.converged)
        #expect(b.nearby.first?.record.revision == result.activity.revision)
        #expect(seen == seen.sorted(), "revisions seen out of order: \(seen)")
        #expect(seen.count >= 2)

        let counts = transport.counts
        #expect(counts.delivered >= counts.received * 3 - 6, "not every datagram came three times: \(counts)")
        #expect(counts.overtaken > 0, "nothing was reordered: \(counts)")
        // Of the three copies of a datagram one is taken and the rest are duplicates, but for the
        // copies still held in the shuffle window (at most `window`). None is lost as a replay.
        // (Copies of plain repeats reach the counters lazily, within 250 ms.)
        let counted = await waitUntil(timeout: .seconds(60)) { b.statistics.duplicate + 6 >= 2 * b.statistics.accepted }
        #expect(counted, "\(b.statistics)")
        #expect(b.statistics.totalRejected == 0, "\(b.statistics.rejected)")
        await a.shutdown()
        await b.shutdown()
    }
}

/// Reorders a stream within a window: what goes in waits among at most `window` others, and a
/// seeded generator picks which of them comes out next.
struct WindowShuffle<Element> {
    let window: Int
    private var held: [Element] = []
    private var random: SplitMix64

    init(window: Int, seed: UInt64) {
        self.window = window
        random = SplitMix64(seed: seed)
    }

    /// Takes one element; returns what leaves the window now (nothing until it is full).
    mutating func push(_ element: Element) -> [Element] {
        held.append(element)
        var out: [Element] = []
        while held.count > window { out.append(held.remove(at: Int.random(in: 0..<held.count, using: &random))) }
        return out
    }

    /// Everything still held, in shuffled order.
    mutating func drain() -> [Element] {
        var out: [Element] = []
        while !held.isEmpty { out.append(held.remove(at: Int.random(in: 0..<held.count, using: &random))) }
        return out
    }
}

extension WindowShuffle: Sendable where Element: Sendable {}

/// A transport whose receiving side delivers every datagram `copies` times, reordered through a
/// `WindowShuffle` of `window` datagrams; sending goes straight to the wrapped transport.
final class TripleShuffleTransport: ActivityTransport {
    struct Counts: Sendable, CustomStringConvertible {
        /// Datagrams the wrapped transport received.
        var received = 0
        /// Datagrams handed on (copies included).
        var delivered = 0
        /// Deliveries whose sequence number is below the one delivered just before.
        var overtaken = 0
        var lastSequence: UInt64 = 0

        var description: String { "received \(received), delivered \(delivered), overtaken \(overtaken)" }
    }

    private let inner: InMemoryTransport
    private let copies: Int
    private let state: State

    /// The shuffle, the counts and the handler, shared with the wrapped transport's thread.
    private final class State: Sendable {
        let lock: Mutex<(shuffle: WindowShuffle<ReceivedDatagram>, counts: Counts, handler: TransportHandler?)>
        init(_ shuffle: WindowShuffle<ReceivedDatagram>) { lock = Mutex((shuffle, Counts(), nil)) }

        /// Counts what left the window, in the same locked section that took it out, so that
        /// `counts` never sees a datagram received whose copies are neither held nor delivered.
        static func count(_ out: [ReceivedDatagram], in counts: inout Counts) {
            for datagram in out {
                let sequence = (try? DatagramHeader(parsing: datagram.bytes))?.sequence ?? 0
                counts.delivered += 1
                if sequence < counts.lastSequence { counts.overtaken += 1 }
                counts.lastSequence = sequence
            }
        }

        /// Hands on what left the window, in order.
        func hand(_ out: [ReceivedDatagram]) {
            let handler = lock.withLock { $0.handler }
            for datagram in out { handler?.receive(datagram) }
        }
    }

    init(wrapping inner: InMemoryTransport, copies: Int, window: Int, seed: UInt64) {
        self.inner = inner
        self.copies = copies
        state = State(WindowShuffle(window: window, seed: seed))
    }

    /// What came in and went out so far.
    var counts: Counts { state.lock.withLock { $0.counts } }

    var endpointDescription: String { "three copies, shuffled, of \(inner.endpointDescription)" }

    func start(_ handler: TransportHandler) {
        let state = state
        let copies = copies
        state.lock.withLock { $0.handler = handler }
        inner.start(
            TransportHandler(
                receive: { datagram in
                    let out = state.lock.withLock { s in
                        s.counts.received += 1
                        let out = (0..<copies).flatMap { _ in s.shuffle.push(datagram) }
                        State.count(out, in: &s.counts)
                        return out
                    }
                    state.hand(out)
                },
                sendFailed: handler.sendFailed))
    }

    func send(_ bytes: [UInt8]) {
        inner.send(bytes)
    }

    func close() async {
        await inner.close()
        state.hand(state.lock.withLock { s in
            let out = s.shuffle.drain()
            State.count(out, in: &s.counts)
            return out
        })
    }
}
