import Foundation
import Testing
import Handoff
import HandoffWire
import PropertyList
@testable import HandoffStore

/// The store's sync rules without I/O (docs/PROTOCOL.md, section 18, "When STORE datagrams are
/// sent"), driven synchronously through minutes of virtual time, seeded.
@Suite("StoreSyncCore: digests, writes, answers, acknowledgements, store states, in virtual time")
struct StoreSyncCoreTests {
    static let peer = SenderID(bytes: Array(repeating: 0xB0, count: 8) + Array(repeating: 2, count: 8))!

    /// When each of `program`'s digests-only STOREs of `store` went out.
    static func digestTimes(_ program: CoreLab.Program, store: String = "baton") -> [Duration] {
        program.log.compactMap { item in
            guard case .send(let message) = item.action, message.store == store, message.entries.isEmpty, message.took.isEmpty else {
                return nil
            }
            return item.at
        }
    }

    @Test("Digests go out at start and then every 27–33 s, drawn from the seeded generator: the same seed, the same times")
    func periodicDigests() {
        func run(seed: UInt64) -> [Duration] {
            let lab = CoreLab()
            lab.add(device: 0xA1, seed: seed)
            lab.open(0, "baton")
            lab.start(0)
            lab.run(for: .seconds(600))
            return Self.digestTimes(lab.programs[0])
        }
        let times = run(seed: 7)
        #expect(times.first == .zero)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.count >= 18 && gaps.count <= 22, "about one every 30 s over ten minutes")
        #expect(gaps.allSatisfy { $0 >= .seconds(27) && $0 <= .seconds(33) })
        #expect(Set(gaps).count > 1, "each period drawn anew")
        #expect(run(seed: 7) == times)
        #expect(run(seed: 8) != times)
    }

    @Test("Nothing goes out before start but a write; a store opened after start sends its digests")
    func beforeStart() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        lab.open(0, "baton")
        #expect(a.log.isEmpty)
        #expect(a.core.nextDeadline == nil, "nothing is due before start")
        lab.start(0)
        lab.open(0, "other")
        #expect(a.sent.map(\.store) == ["baton", "other"])
        #expect(a.sent.allSatisfy { $0.digests == .empty && $0.entries.isEmpty })
    }

    @Test("A write goes out at once; a batch that would take more than 4 datagrams goes as one store state")
    func writesGoAtOnce() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        lab.open(0, "baton")
        lab.start(0)
        try lab.write(0, "baton", ["theme": "dark"])
        let write = try #require(a.log.last)
        guard case .send(let message) = write.action else { Issue.record("not a send: \(write.action)"); return }
        #expect(write.at == .zero && message.entries.map(\.key) == ["theme"])
        #expect(message.digests == a.stores.digests(of: "baton"), "the digests with the write in them")

        try lab.write(0, "baton", Dictionary(uniqueKeysWithValues: (0..<200).map { ("key\($0)", PropertyListValue?.some(.integer($0))) }))
        guard case .sendState(let state) = a.log.last?.action else { Issue.record("not a store state"); return }
        #expect(state.entries.count == 200 && state.revision == 1 && !state.leavesOut)
        #expect(state.otherwise.count > StoreSyncCore.datagramsBeforeState, "the datagrams it would have taken")
    }

    @Test("Without a state stream a batch goes in datagrams, each within the limit, and a write too large for one is refused")
    func withoutStateStream() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1, canShelve: false)
        lab.open(0, "baton")
        lab.start(0)
        try lab.write(0, "baton", Dictionary(uniqueKeysWithValues: (0..<200).map { ("key\($0)", PropertyListValue?.some(.integer($0))) }))
        guard case .sendState(let state) = a.log.last?.action else { Issue.record("more than 4 datagrams: offered as a state"); return }
        #expect(state.otherwise.flatMap(\.entries).count == 200, "every entry, in datagrams, when no state can be kept")
        #expect(state.otherwise.allSatisfy { StoreSyncCore.datagramSize($0) <= 1_200 })
        #expect(throws: KeyValueStoreError.self) {
            try lab.write(0, "baton", ["big": .string(String(repeating: "x", count: 2_000))])
        }
    }

    @Test("Digests that differ are answered after 0–100 ms with the differing buckets' entries; the next answer waits 250 ms")
    func answersDifferences() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 3)
        lab.open(0, "baton")
        lab.start(0)
        try lab.write(0, "baton", ["theme": "dark", "font": "mono"])
        lab.run(for: .seconds(1))
        let before = a.log.count
        lab.hear(0, StoreMessage(store: "baton", digests: .empty), from: Self.peer)
        let due = try #require(a.core.nextDeadline) - lab.now
        #expect(due >= .zero && due <= .milliseconds(100))
        lab.run(for: .milliseconds(100))
        let answer = a.sent.last
        #expect(Set(answer?.entries.map(\.key) ?? []) == ["theme", "font"])
        #expect(a.log.count == before + 1, "one answer")

        // Asked again at once: answered no sooner than 250 ms after the last answer.
        let answeredAt = try #require(a.log.last?.at)
        lab.hear(0, StoreMessage(store: "baton", digests: .empty), from: Self.peer)
        lab.run(for: .seconds(1))
        let second = try #require(a.log.last)
        #expect(second.at - answeredAt >= .milliseconds(250))
    }

    @Test("An answer leaves out a bucket whose digest another peer already sent, and what crossed the digests that asked")
    func answersLeaveOut() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 3)
        lab.open(0, "baton")
        lab.start(0)
        lab.run(for: .seconds(2))
        try lab.write(0, "baton", ["theme": "dark"])
        let sent = a.sent.count
        // Digests sent before the write reached a: the write crossed them.
        lab.run(for: .milliseconds(100))
        lab.hear(0, StoreMessage(store: "baton", digests: .empty), from: Self.peer)
        lab.run(for: .milliseconds(200))
        #expect(a.sent.count == sent + 1 && a.sent.last?.entries.isEmpty == true, "the digests alone: the write is on its way")

        // A third program says what a would: no answer from a.
        lab.run(for: .seconds(1))
        let quiet = a.sent.count
        lab.hear(0, StoreMessage(store: "baton", digests: .empty), from: Self.peer)
        lab.hear(0, StoreMessage(store: "baton", digests: try #require(a.stores.digests(of: "baton"))), from: Self.peer)
        lab.run(for: .seconds(1))
        #expect(a.sent.count == quiet, "every bucket was said by someone else")
    }

    @Test("Entries from their writer are acknowledged within 10 ms, together, the greatest 32; entries passed on are not")
    func acknowledgements() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        lab.open(0, "baton")
        lab.start(0)
        lab.run(for: .seconds(1))
        let versions = (1...40).map { StoreVersion(clock: StoreVersion.clock(at: lab.date) - UInt64($0), writer: Self.peer) }
        let entries = versions.enumerated().map { StoreEntry(key: "k\($0.offset)", value: 1, version: $0.element) }
        lab.hear(0, StoreMessage(store: "baton", digests: .empty, entries: Array(entries[0..<20])), from: Self.peer)
        lab.run(for: .milliseconds(5))
        lab.hear(0, StoreMessage(store: "baton", digests: .empty, entries: Array(entries[20...])), from: Self.peer)
        #expect(try #require(a.core.nextDeadline) - lab.now <= .milliseconds(5))
        lab.run(for: .milliseconds(5))
        let acks = a.sent.filter { !$0.took.isEmpty }
        #expect(acks.count == 1)
        #expect(acks.first?.took == Array(versions.sorted(by: >).prefix(32)))

        let third = SenderID(bytes: Array(repeating: 0xC0, count: 16))!
        let passedOn = StoreEntry(key: "passed", value: 1, version: StoreVersion(clock: StoreVersion.clock(at: lab.date), writer: third))
        lab.hear(0, StoreMessage(store: "baton", digests: .empty, entries: [passedOn]), from: Self.peer)
        lab.run(for: .seconds(1))
        #expect(a.sent.filter { !$0.took.isEmpty }.count == 1, "an entry another device wrote is not acknowledged")
        #expect(a.stores.held["baton"]?["passed"] != nil)
    }

    @Test("A write passed on by another program of its machine first is acknowledged when the writer's own datagram brings it within 1 s; not later")
    func acknowledgedAfterPassedOn() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        lab.open(0, "baton")
        lab.start(0)
        lab.run(for: .seconds(1))
        // The writer's machine's kv watch: same device, another instance.
        let watch = SenderID(bytes: Array(repeating: 0xB0, count: 8) + Array(repeating: 3, count: 8))!
        let version = StoreVersion(clock: StoreVersion.clock(at: lab.date), writer: Self.peer)
        let entry = StoreEntry(key: "theme", value: "dark", version: version)
        lab.hear(0, StoreMessage(store: "baton", digests: .empty, entries: [entry]), from: watch)
        lab.run(for: .milliseconds(20))
        #expect(a.sent.filter { !$0.took.isEmpty }.isEmpty, "passed on by another sender: not acknowledged")
        lab.hear(0, StoreMessage(store: "baton", digests: .empty, entries: [entry]), from: Self.peer)
        lab.run(for: .milliseconds(20))
        #expect(a.sent.filter { !$0.took.isEmpty }.map(\.took) == [[version]], "the writer's own datagram 20 ms later is acknowledged")

        let later = StoreVersion(clock: StoreVersion.clock(at: lab.date), writer: Self.peer)
        let old = StoreEntry(key: "font", value: "mono", version: later)
        lab.hear(0, StoreMessage(store: "baton", digests: .empty, entries: [old]), from: watch)
        lab.run(for: .milliseconds(1_500))
        lab.hear(0, StoreMessage(store: "baton", digests: .empty, entries: [old]), from: Self.peer)
        lab.run(for: .milliseconds(20))
        #expect(a.sent.filter { !$0.took.isEmpty }.count == 1, "an entry held for more than a second is not acknowledged again")
    }

    @Test("Waits end when a peer takes the version or a store is in step, else at their deadline; stop ends the rest")
    func waits() throws {
        var core = StoreSyncCore(
            configuration: .init(maximumDatagramSize: 1_200, canShelve: true, watchesFiles: false), random: SplitMix64(seed: 1))
        let stores = ContentsStores()
        stores.held["baton"] = StoreContents()
        let t = CoreLab.origin
        let version = StoreVersion(clock: 1, writer: Self.peer)
        #expect(core.wait(1, for: .took(version), until: t + .seconds(2)).isEmpty)
        #expect(core.wait(2, for: .synced("baton"), until: t + .seconds(5)).isEmpty)
        #expect(core.wait(3, for: .synced("other"), until: t + .seconds(9)).isEmpty)
        #expect(core.nextDeadline == t + .seconds(2))
        let heard = core.heard(StoreMessage(store: "baton", digests: .empty, took: [version]), from: Self.peer, host: nil, now: t, stores: stores)
        #expect(heard.contains(.resume(1, true)) && heard.contains(.resume(2, true)) && heard.contains(.synced(store: "baton")))
        #expect(core.wait(4, for: .took(version), until: t + .seconds(1)) == [.resume(4, true)], "already taken")
        #expect(core.tick(now: t + .seconds(9), stores: stores) == [.resume(3, false)])
        #expect(core.wait(5, for: .synced("other"), until: t + .seconds(20)).isEmpty)
        #expect(core.stop() == [.resume(5, false)])
        #expect(core.nextDeadline == nil)
        #expect(core.wait(6, for: .synced("other"), until: t + .seconds(20)) == [.resume(6, false)])
    }

    @Test("A store not held: digests are answered as an empty store's, entries make it, past 16 stores they are refused")
    func storesNotHeld() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        lab.start(0)
        let digests = StoreDigests(entries: [(key: "k", version: StoreVersion(clock: 5, writer: Self.peer))])
        lab.hear(0, StoreMessage(store: "settings", digests: digests), from: Self.peer)
        #expect(a.sent.last == StoreMessage(store: "settings", digests: .empty))
        #expect(a.stores.held["settings"] == nil, "digests alone make no store")
        lab.hear(0, StoreMessage(store: "settings", digests: digests), from: Self.peer)
        #expect(a.sent.count == 1, "at most 4 times a second")

        for i in 0..<16 {
            let entry = StoreEntry(key: "k", value: 1, version: StoreVersion(clock: 5, writer: Self.peer))
            lab.hear(0, StoreMessage(store: "s\(i)", digests: digests, entries: [entry]), from: Self.peer)
        }
        #expect(a.stores.held.count == 16 && a.core.refusedCount == 0)
        let extra = StoreEntry(key: "k", value: 1, version: StoreVersion(clock: 5, writer: Self.peer))
        lab.hear(0, StoreMessage(store: "s16", digests: digests, entries: [extra, extra]), from: Self.peer)
        #expect(a.stores.held["s16"] == nil && a.core.refusedCount == 2)
    }

    @Test("A store state is fetched once per store and sender at a time, and its entries taken and acknowledged")
    func storeStates() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        let b = lab.add(device: 0xB0, seed: 2)
        for i in 0..<2 { lab.open(i, "baton") }
        for i in 0..<2 { lab.start(i) }
        lab.run(for: .seconds(1))
        let value = PropertyListValue.data(Data(repeating: 0x5A, count: 900))
        try lab.write(0, "baton", ["big": value])
        guard case .sendState(let state) = a.log.last?.action else { Issue.record("not a store state"); return }
        #expect(state.leavesOut, "an entry that fits no datagram alone")
        lab.run(for: .seconds(1))
        #expect(b.core.fetches == 1)
        #expect(b.stores.held["baton"]?["big"]?.value == value)
        #expect(a.core.happened(.took(try #require(a.stores.held["baton"]?["big"]?.version))))
        #expect(lab.agree(on: "baton"))
    }

    @Test("A peer that was away gets 200 writes from the first exchange, as initialSync; a later write is a peerChange")
    func catchUp() throws {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        let c = lab.add(device: 0xC0, seed: 3)
        lab.open(0, "baton")
        lab.start(0)
        try lab.write(0, "baton", Dictionary(uniqueKeysWithValues: (0..<200).map { ("key\($0)", PropertyListValue?.some(.integer($0))) }))
        lab.run(for: .seconds(5))
        lab.open(1, "baton")
        lab.start(1)
        lab.run(for: .seconds(1))
        #expect(lab.agree(on: "baton") && c.stores.held["baton"]?.usage.keys == 200)
        #expect(c.core.synced.contains("baton") && a.core.synced.contains("baton"))
        let initial = c.log.compactMap { if case .take(let request) = $0.action { request.initial } else { nil } }
        #expect(!initial.isEmpty && initial.allSatisfy { $0 })
        try lab.write(0, "baton", ["late": 1])
        lab.run(for: .seconds(1))
        guard case .take(let late) = c.log.last(where: { if case .take = $0.action { true } else { false } })?.action else {
            Issue.record("c took nothing"); return
        }
        #expect(late.entries.map(\.key) == ["late"] && !late.initial)
    }

    @Test("A partition of two minutes: both sides write; after healing, one periodic round brings all three into step")
    func partitionHeals() throws {
        let lab = CoreLab()
        for (i, device) in [UInt8(0xA1), 0xB0, 0xC0].enumerated() { lab.add(device: device, seed: UInt64(i + 10)) }
        for i in 0..<3 { lab.open(i, "baton") }
        for i in 0..<3 { lab.start(i) }
        lab.run(for: .seconds(5))
        lab.cuts = [[0, 1], [0, 2]]
        try lab.write(0, "baton", ["shared": "from a", "only-a": 1])
        lab.run(for: .seconds(60))
        try lab.write(1, "baton", ["shared": "from b", "only-b": 2])
        lab.run(for: .seconds(60))
        #expect(!lab.agree(on: "baton"))
        #expect(lab.programs[2].stores.held["baton"]?["only-a"] == nil, "c heard nothing from a")
        lab.cuts = []
        lab.run(for: .seconds(34))
        #expect(lab.agree(on: "baton"))
        for program in lab.programs {
            #expect(program.stores.held["baton"]?["shared"]?.value == "from b")
            #expect(program.stores.held["baton"]?.usage.keys == 3)
        }
    }

    @Test("A program that starts beside a peer in step learns it from the peer's answer, at once, not from the next round")
    func inStepAtOnce() {
        let lab = CoreLab()
        let a = lab.add(device: 0xA1, seed: 1)
        let c = lab.add(device: 0xC0, seed: 3)
        lab.open(0, "baton")
        lab.start(0)
        lab.run(for: .seconds(10))
        lab.open(1, "baton")
        lab.start(1)
        lab.run(for: .milliseconds(50))
        #expect(c.core.synced.contains("baton") && a.core.synced.contains("baton"))
        #expect(Self.digestTimes(a).contains(.seconds(10) + .milliseconds(2)), "a answered c's digests as they came")
    }

    @Test("With the stores on disk the files are checked every second, opening new stores while fewer than 16 are held")
    func fileChecks() {
        var core = StoreSyncCore(
            configuration: .init(maximumDatagramSize: 1_200, canShelve: true, watchesFiles: true), random: SplitMix64(seed: 1))
        let stores = ContentsStores()
        let t = CoreLab.origin
        _ = core.start(now: t, stores: stores)
        var checks: [Duration] = []
        var now = t
        while now < t + .seconds(10), let next = core.nextDeadline {
            now = next
            if core.tick(now: now, stores: stores).contains(.checkFiles(openNew: true)) { checks.append(now - t) }
        }
        #expect(checks == (1...10).map { .seconds($0) })
        for i in 0..<16 { stores.held["s\(i)"] = StoreContents() }
        #expect(core.tick(now: now + .seconds(1), stores: stores).contains(.checkFiles(openNew: false)))
    }
}
