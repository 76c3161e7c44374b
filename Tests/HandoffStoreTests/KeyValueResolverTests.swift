import Foundation
import Testing
@testable import Handoff
import HandoffTesting
import HandoffWire
import PropertyList
@testable import HandoffStore

/// The resolver a program gives a store under `resolve`, in virtual time over the in-memory LAN:
/// its answer is written as a new version that reaches the peer, keep both's copy removed; no
/// answer (it throws, or is too slow) leaves keep both's result and says so.
@MainActor
// A wait that never ends fails the test instead of holding the run (`changes(until:)` reads
// until the change it is told of comes).
@Suite("KeyValueStore: the program's resolver settles a conflict", .timeLimit(.minutes(2)))
struct KeyValueResolverTests {
    /// What the resolver was asked.
    final class Asked: @unchecked Sendable {
        private let lock = NSLock()
        private var conflicts: [KeyValueConflict] = []
        func add(_ conflict: KeyValueConflict) { lock.withLock { conflicts.append(conflict) } }
        var all: [KeyValueConflict] { lock.withLock { conflicts } }
    }

    struct Crossed {
        let a: StoreSync, b: StoreSync, aStore: KeyValueStore, bStore: KeyValueStore, clock: ManualClock
        let changes: AsyncStream<KeyValueStoreChange>
        /// Keep both's key for a's losing value: `n.conflict.` and a's tag's first 4 bytes.
        @MainActor var copyKey: String { "n.conflict." + a.center.senderID.bytes.prefix(4).map { String(format: "%02x", $0) }.joined() }
    }

    /// a and b hold n = 1; cut off, a writes n = 3 and b, later, n = 5; then the network heals
    /// and b's write wins: a, which wrote the loser and has `resolver`, is asked.
    func crossed(
        timeout: TimeInterval = 10, clock: ManualClock = ManualClock(start: Date()), resolver: @escaping KeyValueResolver
    ) async throws -> Crossed {
        let network = InMemoryNetwork()
        let a = StoreSyncTests.peer(0, named: "a", on: network, clock: clock)
        let b = StoreSyncTests.peer(1, named: "b", on: network, clock: clock)
        a.resolvers = { name in name == "baton" ? resolver : nil }
        let aStore = try a.store(named: "baton")
        let bStore = try b.store(named: "baton")
        aStore.policy = .resolve
        aStore.resolverTimeout = timeout
        try aStore.set(1, forKey: "n")
        #expect(await StoreSyncTests.settle(clock) { bStore.longLong(forKey: "n") == 1 })
        network.cut(between: "a", and: "b")
        let changes = aStore.changes()
        try aStore.set(3, forKey: "n")
        clock.advance(by: .milliseconds(5))
        try bStore.set(5, forKey: "n")
        network.heal()
        // Virtual time moves a second at a time until the two agree: bounded in real time, not
        // in steps, since a machine busy with the whole suite may take many steps to merge.
        let deadline = ContinuousClock.now + .seconds(60)
        while aStore.entry(forKey: "n")?.version != bStore.entry(forKey: "n")?.version, ContinuousClock.now < deadline {
            clock.advance(by: .seconds(1))
            _ = await waitUntil(timeout: .milliseconds(200)) { aStore.longLong(forKey: "n") == 5 }
        }
        return Crossed(a: a, b: b, aStore: aStore, bStore: bStore, clock: clock, changes: changes)
    }

    /// The changes of a's store until one of `reason`.
    func changes(until reason: KeyValueStoreChange.Reason, in crossed: Crossed) async -> [KeyValueStoreChange] {
        var seen: [KeyValueStoreChange] = []
        var changes = crossed.changes.makeAsyncIterator()
        while seen.last?.reason != reason, let change = await changes.next() { seen.append(change) }
        return seen
    }

    @Test("The resolver's answer is written after the winner and reaches the peer; keep both's copy is removed everywhere")
    func answerReachesPeer() async throws {
        let asked = Asked()
        let crossed = try await crossed { conflict in
            asked.add(conflict)
            return .integer((conflict.winner?.intValue ?? 0) + (conflict.loser?.intValue ?? 0) - (conflict.ancestor?.intValue ?? 0))
        }
        defer { Task { [a = crossed.a, b = crossed.b] in await StoreSyncTests.shutdown([a, b]) } }
        let seen = await changes(until: .resolved, in: crossed)
        #expect(asked.all == [KeyValueConflict(key: "n", winner: 5, loser: 3, ancestor: 1)])
        #expect(seen.last == KeyValueStoreChange(reason: .resolved, keys: ["n", crossed.copyKey]))
        #expect(crossed.aStore.longLong(forKey: "n") == 7)
        let (aStore, bStore, copyKey) = (crossed.aStore, crossed.bStore, crossed.copyKey)
        #expect(await StoreSyncTests.settle(crossed.clock) { bStore.longLong(forKey: "n") == 7 })
        #expect(aStore.entry(forKey: "n")?.replaces != nil && bStore.object(forKey: copyKey) == nil)
        #expect(aStore.object(forKey: copyKey) == nil)
        #expect(aStore.digests == bStore.digests)
    }

    @Test("A resolver that throws leaves keep both's result, and the store says so")
    func failingResolver() async throws {
        struct Broken: Error {}
        let crossed = try await crossed { _ in throw Broken() }
        defer { Task { [a = crossed.a, b = crossed.b] in await StoreSyncTests.shutdown([a, b]) } }
        let seen = await changes(until: .unresolved, in: crossed)
        let said = try #require(seen.last)
        #expect(said.reason == .unresolved && said.keys == ["n", crossed.copyKey])
        #expect(said.note?.contains("the resolver failed") == true && said.note?.contains("keep both") == true)
        let (aStore, bStore, copyKey) = (crossed.aStore, crossed.bStore, crossed.copyKey)
        #expect(aStore.longLong(forKey: "n") == 5 && aStore.longLong(forKey: copyKey) == 3)
        #expect(await StoreSyncTests.settle(crossed.clock) { bStore.longLong(forKey: copyKey) == 3 })
    }

    @Test("A resolver slower than the store's timeout (in virtual time) leaves keep both's result; its late answer is dropped")
    func slowResolver() async throws {
        let clock = ManualClock(start: Date())
        let crossed = try await crossed(timeout: 2, clock: clock) { _ in
            // The resolver under test is slow: it waits 60 s of the virtual clock, which only
            // this test moves; nothing here waits for an event.
            try await clock.sleep(for: .seconds(60))  // wait-ok: the slow resolver under test, on the virtual clock
            return 99
        }
        defer { Task { [a = crossed.a, b = crossed.b] in await StoreSyncTests.shutdown([a, b]) } }
        clock.advance(by: .seconds(3))
        let seen = await changes(until: .unresolved, in: crossed)
        #expect(seen.last?.note?.contains("no answer within 2 s") == true)
        clock.advance(by: .seconds(120))
        let (aStore, copyKey) = (crossed.aStore, crossed.copyKey)
        _ = await waitUntil(timeout: .milliseconds(200)) { aStore.longLong(forKey: "n") == 99 }
        #expect(aStore.longLong(forKey: "n") == 5 && aStore.longLong(forKey: copyKey) == 3)
    }
}
