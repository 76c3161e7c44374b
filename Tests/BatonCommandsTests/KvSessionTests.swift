import BatonCommands
import Foundation
import Handoff
import HandoffStore
import HandoffTesting
import HandoffWire
import PropertyList
import Testing

/// The kv commands' work on the network, between devices on an in-memory LAN: what `get`,
/// `set`, `import`, `rm`, `list --wait` and `watch` come to, as values.
@MainActor
@Suite("kv on the network")
struct KvSessionTests {
    @Test("set reaches a peer, which says it took it; get on another device reads it once in step")
    func setThenGet() async throws {
        let lab = KvLab()
        let b = lab.peer(1, named: "b")
        let bStore = try b.store(named: "baton")
        let a = try await lab.session(0, named: "a")
        #expect(try await a.set(.string("dark"), forKey: .named("theme"), wait: Seconds(60)) == .taken)
        #expect(bStore.string(forKey: "theme") == "dark")

        let c = try await lab.session(2, named: "c")
        #expect(try await c.value(of: .named("theme"), wait: Seconds(60)) == .string("dark"))
        await lab.shutdown()
    }

    @Test("import is one write of many keys; a null removes its key")
    func importValues() async throws {
        let lab = KvLab()
        let b = lab.peer(1, named: "b")
        let bStore = try b.store(named: "baton")
        let a = try await lab.session(0, named: "a")
        let values: [String: PropertyListValue?] = ["w": .integer(80), "h": .integer(24), "gone": PropertyListValue?.none]
        #expect(try await a.setAll(values, wait: Seconds(60)) == .taken)
        #expect(bStore.object(forKey: "w") == .integer(80) && bStore.object(forKey: "h") == .integer(24))
        #expect(bStore.object(forKey: "gone") == nil)
        await lab.shutdown()
    }

    @Test("get and rm of a key no device has: noSuchKey once in step with a peer")
    func missingKey() async throws {
        for remove in [false, true] {
            let lab = KvLab()
            _ = try lab.peer(1, named: "b").store(named: "baton")
            let a = try await lab.session(0, named: "a")
            if remove {
                await #expect(throws: KvFailure.noSuchKey(key: "nope", store: "baton", where: .toRemove)) {
                    try await a.remove(.named("nope"), wait: Seconds(60))
                }
            } else {
                await #expect(throws: KvFailure.noSuchKey(key: "nope", store: "baton", where: .inStep)) {
                    try await a.value(of: .named("nope"), wait: Seconds(60))
                }
            }
            await lab.shutdown()
        }
    }

    @Test("rm of a key only a peer has waits to hear it, then removes it everywhere")
    func removeFromPeer() async throws {
        let lab = KvLab()
        let b = lab.peer(1, named: "b")
        let bStore = try b.store(named: "baton")
        try bStore.set(.string("dark"), forKey: "theme")
        let a = try await lab.session(0, named: "a")
        #expect(try await a.remove(.named("theme"), wait: Seconds(60)) == .taken)
        #expect(await waitUntil { bStore.object(forKey: "theme") == nil })
        await lab.shutdown()
    }

    @Test("With no peer, get and set give up after --wait in virtual time; --wait 0 does not wait")
    func noPeer() async throws {
        let lab = KvLab()
        let clock = ManualClock()
        let a = try await lab.session(0, named: "a", clock: clock)
        #expect(try await a.set(.integer(1), forKey: .named("k"), wait: Seconds(0)) == .sent)

        let b = try await lab.session(1, named: "b", clock: clock)
        var delivery: KvDelivery?
        let write = Task { @MainActor in delivery = try await b.set(.integer(2), forKey: .named("k"), wait: Seconds(1)) }
        // Each look moves virtual time on by half a second: the wait ends once it passed 1 s.
        #expect(await waitUntil { clock.advance(by: .milliseconds(500)); return delivery != nil })
        try await write.value
        #expect(delivery == .notTaken)
        #expect(delivery?.note?.hasPrefix("Saved here; no peer has it yet") == true)

        let c = try await lab.session(2, named: "c", clock: clock)
        var failure: KvFailure?
        let read = Task { @MainActor in
            do throws(KvFailure) { _ = try await c.value(of: .named("k"), wait: Seconds(2)) } catch { failure = error }
        }
        #expect(await waitUntil { clock.advance(by: .milliseconds(500)); return failure != nil })
        await read.value
        #expect(failure == .noSuchKey(key: "k", store: "baton", where: .unanswered(Seconds(2))))
        await lab.shutdown()
    }

    @Test("A write past the store's limit is refused, changes nothing and reaches no peer")
    func refused() async throws {
        let lab = KvLab()
        let b = lab.peer(1, named: "b")
        let bStore = try b.store(named: "baton")
        let a = try await lab.session(0, named: "a")
        await #expect {
            try await a.set(.data(Data(count: 1_100_000)), forKey: .named("logo"), wait: Seconds(60))
        } throws: { error in
            guard case KvFailure.refused = error else { return false }
            return true
        }
        #expect(a.store.object(forKey: "logo") == nil)
        #expect(bStore.object(forKey: "logo") == nil)
        await lab.shutdown()
    }

    @Test("list --wait lists the store in step with a peer, the peer's writes named from the membership")
    func listing() async throws {
        let lab = KvLab()
        let b = lab.peer(1, named: "b")
        try b.store(named: "baton").setAll(["b": .integer(2), "a": .integer(1)])
        let a = try await lab.session(0, named: "a")
        let listing = await a.listing(wait: Seconds(60))
        #expect(listing.rows.map(\.key) == ["a", "b"])
        #expect(listing.rows.map(\.writerName) == ["peer", "peer"])
        #expect(!listing.isStale)
        await lab.shutdown()
    }

    @Test("watch: a peer's write comes as a change of the store, one line per key")
    func watch() async throws {
        let lab = KvLab()
        let b = lab.peer(1, named: "b")
        let bStore = try b.store(named: "baton")
        let a = try await lab.session(0, named: "a")
        #expect(await a.sync.waitForSync(of: "baton", timeout: 60))
        var changes = a.store.changes().makeAsyncIterator()
        try bStore.set(.string("dark"), forKey: "theme")
        let change = try #require(await changes.next())
        #expect(change.keys == ["theme"])
        let lines = a.lines(of: change, json: false, at: Date())
        #expect(lines == ["\(change.reason.rawValue) theme = dark"])
        let json = try #require(a.lines(of: change, json: true, at: Date()).first)
        #expect(json.contains(#""key":"theme""#) && json.contains(#""value":"dark""#))
        await a.close()
        await lab.shutdown()
    }

    @Test("A store whose file cannot be read is said, the network left, and the command fails")
    func unusableStore() async throws {
        let lab = KvLab()
        let home = try KvHome()
        let folder = try home.storeFolder()
        try FileManager.default.createDirectory(atPath: folder + "/baton.plist", withIntermediateDirectories: true)
        await #expect(throws: KvFailure.storeUnusable) {
            _ = try await lab.session(0, named: "a", folder: folder)
        }
        #expect(!lab.said.isEmpty)
        #expect(lab.said.allSatisfy { !$0.contains("\u{1B}") })
        await lab.shutdown()
    }
}
