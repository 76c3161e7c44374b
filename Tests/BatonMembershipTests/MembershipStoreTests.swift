import BatonFiles
import Foundation
import Handoff
import BatonMembership
import HandoffTesting
import HandoffWire
import Synchronization
import Testing

/// The membership on disk (docs/PROTOCOL.md, sections 3, 15 and 17): loading, introducing the
/// devices paired before statements, storing changes beside another writer, noticing another
/// process's change, and the key files.
@Suite("Membership store")
struct MembershipStoreTests {
    typealias Folder = ConfigFolder

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func store(_ folder: Folder, extra: [String: String] = [:], keyFile: String? = nil) -> MembershipStore {
        MembershipStore(keyFile: keyFile, name: "alice@laptop", environment: folder.environment.merging(extra) { $1 })
    }

    static func statements(_ folder: Folder) throws -> [Statement] {
        try DeviceList.standard(environment: folder.environment).snapshot().statements.map { try Statement(parsing: $0) }
    }

    static func key(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("First load makes identity.key and group.key (0600); the list holds this device alone; no previous key")
    func firstLoad() throws {
        let folder = try Folder()
        let loaded = try Self.store(folder).load()
        #expect(loaded.notices.count == 1 && loaded.notices[0].contains("no identity yet"))
        #expect(try folder.mode(folder.path("identity.key")) == 0o600)
        #expect(try folder.mode(folder.path("group.key")) == 0o600)
        #expect(loaded.membership.keys.previous == nil)
        #expect(loaded.membership.keys.current.base64 == (try Self.key(folder.path("group.key"))))
        #expect(loaded.membership.roster.listed.count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.path("devices.json")))
        #expect(try Self.store(folder).load().notices.isEmpty)
    }

    @Test("Devices paired before statements existed get an introduction by this device, made once and stored")
    func migration() throws {
        let folder = try Folder()
        let me = try DeviceIdentity.load(environment: folder.environment).identity
        let bob = DeviceIdentity.random().publicIdentity
        let carol = DeviceIdentity.random().publicIdentity
        let list = DeviceList.standard(environment: folder.environment)
        try list.recordPaired(name: "bob@desk", identity: bob, at: Self.t0)
        try list.recordPaired(name: "carol@vm", identity: carol, at: Self.t0)
        let loaded = try Self.store(folder).load()
        let made = try Self.statements(folder)
        #expect(made.map(\.content) == [.introduce(identity: bob, name: "bob@desk"), .introduce(identity: carol, name: "carol@vm")])
        #expect(made.allSatisfy { $0.isSigned(by: me.publicIdentity) })
        #expect(loaded.membership.roster.statements.map(\.bytes) == made.map(\.bytes))
        #expect(loaded.membership.roster.listed.count == 3)
        // Loading again makes none; pairing a third device later gets one at the next load.
        _ = try Self.store(folder).load()
        #expect(try Self.statements(folder).count == 2)
        let dave = DeviceIdentity.random().publicIdentity
        try list.recordPaired(name: "dave@nas", identity: dave, at: Self.t0)
        _ = try Self.store(folder).load()
        #expect(try Self.statements(folder).last?.content == .introduce(identity: dave, name: "dave@nas"))
    }

    @Test("Two writers: each adds its statements to what the other wrote (a union, in the order written)")
    func twoWriters() throws {
        let folder = try Folder()
        let first = Self.store(folder)
        let second = Self.store(folder)
        let me = try first.load().membership.identity
        _ = try second.load()
        let a = Statement(.remove(device: Array(repeating: 1, count: 16)), by: me, at: Self.t0).bytes
        let b = Statement(.remove(device: Array(repeating: 2, count: 16)), by: me, at: Self.t0).bytes
        try first.store(keys: nil, statements: [a])
        try second.store(keys: nil, statements: [b, a])
        #expect(try Self.statements(folder).map(\.bytes) == [a, b])
        // Many at once: the lock serialises them, none is lost.
        let many = (0..<12).map { Statement(.remove(device: Array(repeating: UInt8(10 + $0), count: 16)), by: me, at: Self.t0).bytes }
        let environment = folder.environment
        DispatchQueue.concurrentPerform(iterations: many.count) { index in
            _ = try? MembershipStore(name: "w\(index)", environment: environment).store(keys: nil, statements: [many[index]])
        }
        #expect(Set(try Self.statements(folder).map(\.bytes)) == Set([a, b] + many))
    }

    @Test("A new key goes to group.key and the one it replaces to group.key.old, both 0600")
    func keyFiles() throws {
        let folder = try Folder()
        let store = Self.store(folder)
        let old = try store.load().membership.keys.current
        let new = GroupKey.random()
        try store.store(keys: GroupKeys(current: old).changed(to: new), statements: [])
        #expect(try Self.key(folder.path("group.key")) == new.base64)
        #expect(try Self.key(folder.path("group.key.old")) == old.base64)
        #expect(try folder.mode(folder.path("group.key")) == 0o600)
        #expect(try folder.mode(folder.path("group.key.old")) == 0o600)
        let again = try Self.store(folder).load().membership.keys
        #expect(again.current == new && again.previous == old)
    }

    @Test("--key-file: the new key goes to that file and its .old; the default file is not touched")
    func keyFileOption() throws {
        let folder = try Folder()
        let path = folder.config.appendingPathComponent("mine.key").path
        let old = GroupKey.random()
        try old.write(to: path, replace: false)
        let store = Self.store(folder, keyFile: path)
        #expect(try store.load().membership.keys.current == old)
        let new = GroupKey.random()
        try store.store(keys: GroupKeys(current: old).changed(to: new), statements: [])
        #expect(try Self.key(path) == new.base64 && (try Self.key(path + ".old")) == old.base64)
        #expect(!FileManager.default.fileExists(atPath: folder.path("group.key")))
    }

    @Test("BATON_KEY: a new key goes to the default key file, and the person is told once that BATON_KEY is out of date")
    func environmentKey() throws {
        let folder = try Folder()
        let old = GroupKey.random()
        let store = Self.store(folder, extra: ["BATON_KEY": old.base64])
        let loaded = try store.load()
        #expect(loaded.keySource == .environment && loaded.membership.keys.current == old)
        let new = GroupKey.random()
        let told = try store.store(keys: GroupKeys(current: old).changed(to: new), statements: [])
        #expect(told.count == 1 && told[0].contains("BATON_KEY holds the key the group used before") && told[0].contains("unset BATON_KEY"))
        #expect(try Self.key(folder.path("group.key")) == new.base64 && (try Self.key(folder.path("group.key.old"))) == old.base64)
        let newer = GroupKey.random()
        #expect(try store.store(keys: GroupKeys(current: new).changed(to: newer), statements: []).isEmpty)
        #expect(try Self.key(folder.path("group.key")) == newer.base64)
    }

    @Test("Another process's change is noticed by the files' stamps and put in place; this store's own writes are not")
    func noticesChange() throws {
        let folder = try Folder()
        let program = Self.store(folder)
        let membership = try program.load().membership
        #expect(!program.filesChanged)
        #expect(try !program.reloadIfChanged(membership))
        // `baton devices remove` in another process: a statement and a new key.
        let other = Self.store(folder)
        let otherLoaded = try other.load().membership
        let gone = Array(repeating: UInt8(7), count: 16)
        let remove = Statement(.remove(device: gone), by: otherLoaded.identity, at: Self.t0).bytes
        let new = GroupKey.random()
        try other.store(keys: otherLoaded.keys.changed(to: new), statements: [remove])
        #expect(program.filesChanged)
        #expect(try program.reloadIfChanged(membership))
        #expect(membership.roster.removed.contains(gone))
        #expect(membership.keys.current == new && membership.keys.previous == otherLoaded.keys.current)
        #expect(try !program.reloadIfChanged(membership))
        // This store's own write changes the files but is no news to it.
        let again = Statement(.remove(device: Array(repeating: 8, count: 16)), by: membership.identity, at: Self.t0).bytes
        membership.taking([again])
        try program.store(keys: nil, statements: membership.roster.statements.map(\.bytes))
        #expect(!program.filesChanged)
    }

    @Test("Keeping: a statement the program took is stored within a round, and another process's change is read and reported")
    func keeping() async throws {
        let folder = try Folder()
        let program = Self.store(folder)
        let membership = try program.load().membership
        // Taken from a DEVICES datagram: stored by the next round, with no reload.
        let taken = Statement(.remove(device: Array(repeating: 3, count: 16)), by: membership.identity, at: Self.t0).bytes
        #expect(!membership.taking([taken]).isEmpty)
        let first = try program.sync(membership)
        #expect(!first.reloaded && first.notices.isEmpty)
        #expect(try Self.statements(folder).map(\.bytes) == [taken])
        #expect(try !program.sync(membership).reloaded)
        // Written by another process: the keeper reloads within its interval and says so.
        let reloads = ReloadCount()
        let task = program.keep(membership, every: .milliseconds(20), reloaded: { reloads.add() })
        defer { task.cancel() }
        let gone = Array(repeating: UInt8(9), count: 16)
        try Self.store(folder).store(
            keys: nil, statements: [Statement(.remove(device: gone), by: membership.identity, at: Self.t0).bytes])
        #expect(await waitUntil(timeout: .seconds(60)) { reloads.value > 0 })
        #expect(membership.roster.removed.contains(gone))
        #expect(membership.roster.statements.first?.bytes == taken)
    }

    @Test("Stopping the keeper stores what the program took since its last round: a program that ends within a second of taking a statement keeps it")
    func stopKeeping() throws {
        let folder = try Folder()
        let program = Self.store(folder)
        let membership = try program.load().membership
        // A round an hour away: only the stop can store it.
        let keeper = program.keep(membership, every: .seconds(3600))
        let taken = Statement(.remove(device: Array(repeating: 4, count: 16)), by: membership.identity, at: Self.t0).bytes
        #expect(!membership.taking([taken]).isEmpty)
        #expect(try Self.statements(folder).isEmpty)
        #expect(program.stopKeeping(keeper, membership).isEmpty)
        #expect(keeper.isCancelled)
        #expect(try Self.statements(folder).map(\.bytes) == [taken])
        // Nothing new: stopping again writes nothing and says nothing.
        #expect(program.stopKeeping(nil, membership).isEmpty)
        #expect(try Self.statements(folder).map(\.bytes) == [taken])
    }
}

/// How many times a keeper said it reloaded.
private final class ReloadCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
