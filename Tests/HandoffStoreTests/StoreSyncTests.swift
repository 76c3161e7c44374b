import Foundation
import Testing
@testable import Handoff
import HandoffTesting
import HandoffWire
import PropertyList
@testable import HandoffStore

/// Stores kept in step between centers of different devices on an in-memory LAN
/// (docs/PROTOCOL.md, section 18, "When STORE datagrams are sent"), in virtual time: the
/// protocol's timers (answers within 100 ms, acknowledgements within 10 ms, digests every
/// 27–33 s) run on a `ManualClock` that each test moves on as it looks.
@MainActor
@Suite("StoreSync: writes reach peers, differences are answered, partitions heal")
struct StoreSyncTests {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let identities = [0xA1, 0xB0, 0xC0, 0xD0].map { DeviceIdentity(seed: Array(repeating: UInt8($0), count: 32))! }
    static let registry = ActivityTypeRegistry(declaredTypes: ["dev.baton.counter"], schemas: [:])

    /// Device `index` of `identities`, listing every other as paired, on `network`, with a sync
    /// holding its stores in memory.
    static func peer(
        _ index: Int, named name: String, on network: InMemoryNetwork, clock: ManualClock,
        streams: InMemoryStreams? = nil
    ) -> StoreSync {
        let identity = identities[index]
        let others = identities.enumerated().filter { $0.offset != index }.map(\.element)
        let roster = DeviceRoster(own: identity.publicIdentity, name: name, paired: others.map { ($0.publicIdentity, "peer") })
        let config = ActivityCenter.Configuration(
            peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0"),
            senderID: .random(device: identity.publicIdentity.deviceID))
        let shelf = StateShelf()
        let port = 40_000 + index
        let center = ActivityCenter(
            registry: registry, membership: Membership(identity: identity, keys: GroupKeys(current: key, previous: nil), roster: roster),
            transport: network.makeTransport(name: name), configuration: config, clock: clock,
            stateStream: streams.map { StateStreamSetup(shelf: shelf, port: port, dialer: $0) })
        if let streams {
            // Served as the center is: its device and sender id, to the devices it lists.
            streams.serve(
                host: name, port: port, identity: center.membership.streamIdentity(senderID: center.senderID),
                trust: center.membership.streamTrust, shelf: shelf)
        }
        center.start()
        let sync = StoreSync(center: center, folder: nil)
        sync.start()
        return sync
    }

    static func shutdown(_ syncs: [StoreSync]) async {
        for sync in syncs {
            sync.stop()
            await sync.center.shutdown()
        }
    }

    @Test("A set on A reaches B and C; C's changes say peerChange; A learns that a peer took it")
    func setReachesPeers() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let a = Self.peer(0, named: "a", on: network, clock: clock)
        let b = Self.peer(1, named: "b", on: network, clock: clock)
        let c = Self.peer(2, named: "c", on: network, clock: clock)
        defer { Task { await Self.shutdown([a, b, c]) } }
        let store = try a.store(named: "baton")
        _ = try b.store(named: "baton")
        let cStore = try c.store(named: "baton")
        // Let the digests each sends on opening pass, so that the write below is news to the others.
        #expect(await Self.settle(clock, on: network) { a.heardCount >= 2 && b.heardCount >= 2 && c.heardCount >= 2 })
        var changes = cStore.changes().makeAsyncIterator()
        try store.set("dark", forKey: "theme")
        let version = try #require(store.entry(forKey: "theme")?.version)
        #expect(await Self.awaiting(clock, on: network) { await a.waitForPeer(toTake: version, timeout: 30) })
        #expect(await Self.settle(clock, on: network) { (try? b.store(named: "baton").string(forKey: "theme")) == "dark" })
        #expect(await Self.settle(clock, on: network) { cStore.string(forKey: "theme") == "dark" })
        let change = await changes.next()
        #expect(change?.keys == ["theme"])
        #expect(change?.reason == .peerChange || change?.reason == .initialSync)
        #expect(try b.store(named: "baton").digests == store.digests)
    }

    @Test("A peer that was away gets 200 changes from the first exchange, as initialSync")
    func awayPeerCatchesUp() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let a = Self.peer(0, named: "a", on: network, clock: clock)
        defer { Task { await Self.shutdown([a]) } }
        let store = try a.store(named: "baton")
        store.writesThrough = false
        for i in 0..<200 { try store.set(.integer(i), forKey: "key\(i)") }
        #expect(store.usage.keys == 200)
        // C comes back: it opens its store (empty here), whose digests go out; A answers.
        let c = Self.peer(2, named: "c", on: network, clock: clock)
        defer { Task { await Self.shutdown([c]) } }
        let cStore = try c.store(named: "baton")
        var changes = cStore.changes().makeAsyncIterator()
        try #require(await Self.awaiting(clock, on: network) { await c.waitForSync(of: "baton", timeout: 60) })
        #expect(cStore.dictionaryRepresentation == store.dictionaryRepresentation)
        #expect(cStore.digests == store.digests)
        var reasons: Set<KeyValueStoreChange.Reason> = []
        var keys = 0
        while keys < 200, let change = await changes.next() {
            reasons.insert(change.reason)
            keys += change.keys.count
        }
        #expect(reasons == [.initialSync] && keys == 200)
    }

    @Test("A program that starts beside peers already in step learns it from their answer, not from the next round")
    func inStepAtOnce() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock(start: Date())
        let a = Self.peer(0, named: "a", on: network, clock: clock)
        defer { Task { await Self.shutdown([a]) } }
        _ = try a.store(named: "baton")
        let c = Self.peer(2, named: "c", on: network, clock: clock)
        defer { Task { await Self.shutdown([c]) } }
        _ = try c.store(named: "baton")
        // Both empty: equal digests. Virtual time moves only in small steps as the test looks, and
        // the sync must come before the first periodic round (27 s), so only an answer can bring it.
        // (A frozen clock raced: A's opening digests, delivered late, could reach C before C opened
        // its store, and C's answer as empty then held every answer back for a spacing that never passed.)
        #expect(await Self.settle(clock, on: network) { c.isSynced("baton") && a.isSynced("baton") })
        #expect(clock.elapsed < .seconds(27), "synced after \(clock.elapsed) of protocol time: a periodic round did it")
        #expect(c.heardPeer(for: "baton"))
    }

    @Test("A device that holds no store gets it whole when a peer's digests are heard")
    func newDeviceGetsTheStore() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let a = Self.peer(0, named: "a", on: network, clock: clock)
        let d = Self.peer(3, named: "d", on: network, clock: clock)
        defer { Task { await Self.shutdown([a, d]) } }
        let store = try a.store(named: "settings")
        try store.set("dark", forKey: "theme")
        #expect(await Self.settle(clock, on: network) { d.storeNames == ["settings"] })
        #expect(try d.store(named: "settings").string(forKey: "theme") == "dark")
    }

    @Test("A partition: the same key set on both sides and another key on each; after healing all three agree and the loser is reported")
    func partitionHeals() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock(start: Date())
        let a = Self.peer(0, named: "a", on: network, clock: clock)
        let b = Self.peer(1, named: "b", on: network, clock: clock)
        let c = Self.peer(2, named: "c", on: network, clock: clock)
        defer { Task { await Self.shutdown([a, b, c]) } }
        let aStore = try a.store(named: "baton")
        let bStore = try b.store(named: "baton")
        _ = try c.store(named: "baton")
        #expect(await waitUntil { a.heardCount >= 2 && b.heardCount >= 2 && c.heardCount >= 2 })
        network.cut(between: "a", and: "b")
        network.cut(between: "a", and: "c")
        var aChanges = aStore.changes().makeAsyncIterator()
        try aStore.set("from a", forKey: "shared")
        clock.advance(by: .milliseconds(5))
        try bStore.set("from b", forKey: "shared")
        try aStore.set(1, forKey: "only-a")
        try bStore.set(2, forKey: "only-b")
        #expect(await waitUntil { (try? c.store(named: "baton").string(forKey: "shared")) == "from b" })
        #expect(aStore.string(forKey: "shared") == "from a", "a heard nothing while cut off")

        network.heal()
        // The next periodic digests (27–33 s) find the difference.
        for _ in 0..<40 where aStore.digests != bStore.digests {
            clock.advance(by: .seconds(1))
            _ = await waitUntil(timeout: .milliseconds(200)) { aStore.digests == bStore.digests }
        }
        let cStore = try c.store(named: "baton")
        #expect(await Self.settle(clock, on: network) { aStore.digests == bStore.digests && bStore.digests == cStore.digests })
        for store in [aStore, bStore, cStore] {
            #expect(store.string(forKey: "shared") == "from b")
            #expect(store.longLong(forKey: "only-a") == 1 && store.longLong(forKey: "only-b") == 2)
        }
        var reasons: [KeyValueStoreChange.Reason: [String]] = [:]
        while reasons[.conflict] == nil, let change = await aChanges.next() { reasons[change.reason, default: []] += change.keys }
        #expect(reasons[.conflict] == ["shared"], "a's write lost, and a says so")
    }

    @Test("A listed peer cannot make a store break its limits: entries past 1,024 keys are refused and counted")
    func peerCannotOverfill() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let a = Self.peer(0, named: "a", on: network, clock: clock)
        let b = Self.peer(1, named: "b", on: network, clock: clock)
        defer { Task { await Self.shutdown([a, b]) } }
        let bStore = try b.store(named: "baton")
        try bStore.setAll(Dictionary(uniqueKeysWithValues: (0..<1_024).map { ("b\($0)", PropertyListValue?.some(.integer($0))) }))
        #expect(await Self.settle(clock, on: network) { (try? a.store(named: "baton").usage.keys) == 1_024 })
        // a's own write is refused locally (its store is full too)…
        let aStore = try a.store(named: "baton")
        #expect(throws: KeyValueStoreError.tooManyKeys(limit: 1_024)) { try aStore.set(1, forKey: "extra") }
        // …and an entry sent as if by a, past b's limit, is refused by b.
        let entry = StoreEntry(
            key: "forced", value: 1, version: StoreVersion(clock: StoreVersion.nextClock(after: 0, now: clock.date), writer: a.center.senderID))
        a.center.sendStore(StoreMessage(store: "baton", digests: aStore.digests, entries: [entry]))
        #expect(await Self.settle(clock, on: network) { b.refusedCount >= 1 })
        #expect(bStore.object(forKey: "forced") == nil && bStore.usage.keys == 1_024)
    }

    @Test("A value too large for a datagram goes over the state stream: 200 KB set on A is read on B")
    func largeValueOverTheStream() async throws {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let clock = ManualClock()
        let a = Self.peer(0, named: "a", on: network, clock: clock, streams: streams)
        let b = Self.peer(1, named: "b", on: network, clock: clock, streams: streams)
        defer { Task { await Self.shutdown([a, b]) } }
        let aStore = try a.store(named: "baton")
        let bStore = try b.store(named: "baton")
        #expect(await Self.settle(clock, on: network) { a.heardCount >= 1 && b.heardCount >= 1 })
        let text = String(repeating: "Größe 大 ", count: 20_000)
        try aStore.set(.string(text), forKey: "clipboard")
        let version = try #require(aStore.entry(forKey: "clipboard")?.version)
        #expect(await Self.awaiting(clock, on: network) { await a.waitForPeer(toTake: version, timeout: 30) })
        #expect(bStore.string(forKey: "clipboard") == text)
        // Over the stream (a second fetch can follow when b's digests from before the write reach
        // a more than a second late, on a loaded machine).
        #expect(b.fetches >= 1)
    }

    @Test("A full store (1,024 keys, about 1 MB) reaches a newly started peer in one store state")
    func fullStoreToANewPeer() async throws {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let clock = ManualClock()
        let a = Self.peer(0, named: "a", on: network, clock: clock, streams: streams)
        defer { Task { await Self.shutdown([a]) } }
        let store = try a.store(named: "baton")
        store.writesThrough = false
        let value = PropertyListValue.data(Data(repeating: 0x5A, count: 960))
        try store.setAll(Dictionary(uniqueKeysWithValues: (0..<1_024).map { (String(format: "key-%04d", $0), PropertyListValue?.some(value)) }))
        #expect(store.usage.keys == 1_024 && store.usage.bytes > 1_030_000)
        let d = Self.peer(3, named: "d", on: network, clock: clock, streams: streams)
        defer { Task { await Self.shutdown([d]) } }
        let dStore = try d.store(named: "baton")
        #expect(await Self.awaiting(clock, on: network) { await d.waitForSync(of: "baton", timeout: 60) })
        #expect(dStore.digests == store.digests && dStore.usage == store.usage)
        #expect(d.fetches >= 1 && d.fetches <= 2, "one state, or two if a second answer came first")
    }

    @Test("A peer holds at most 16 stores: entries for a 17th store are refused and counted, nothing made")
    func storeLimit() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let a = Self.peer(0, named: "a", on: network, clock: clock)
        let b = Self.peer(1, named: "b", on: network, clock: clock)
        defer { Task { await Self.shutdown([a, b]) } }
        let names = (0..<17).map { "store\($0)" }
        #expect(names.count == 17)
        for name in names { try a.store(named: name).set(1, forKey: "k") }
        #expect(await Self.settle(clock, on: network) { b.storeNames.count == 16 && b.refusedCount >= 1 })
        #expect(b.storeNames.count == 16)
    }

    @Test("Entries that do not fit one datagram are refused at set, with the limit named")
    func entryTooLarge() async throws {
        let network = InMemoryNetwork()
        let a = Self.peer(0, named: "a", on: network, clock: ManualClock())
        defer { Task { await Self.shutdown([a]) } }
        let store = try a.store(named: "baton")
        try store.set(.string(String(repeating: "x", count: 700)), forKey: "fits")
        #expect {
            try store.set(.string(String(repeating: "x", count: 2_000)), forKey: "big")
        } throws: { error in
            guard case KeyValueStoreError.entryTooLarge(let bytes, 1_200) = error else { return false }
            return bytes > 1_200
        }
        #expect(store.object(forKey: "big") == nil)
    }
}
