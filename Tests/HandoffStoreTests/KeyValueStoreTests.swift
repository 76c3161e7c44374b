import Foundation
import Testing
import HandoffTesting
import HandoffWire
import PropertyList
@testable import HandoffStore

/// One store alone: the API, the limits, the versions, which write wins, and its file
/// (docs/PROTOCOL.md, section 18).
@MainActor
@Suite("KeyValueStore: API, limits, versions, conflicts, file")
struct KeyValueStoreTests {
    static let a = SenderID.random(device: DeviceIdentity(seed: Array(repeating: 0xA1, count: 32))!.publicIdentity.deviceID)
    static let b = SenderID.random(device: DeviceIdentity(seed: Array(repeating: 0xB0, count: 32))!.publicIdentity.deviceID)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func store(
        _ writer: SenderID = a, file: StoreFile? = nil, policy: ConflictPolicy? = nil, clock: ManualClock = ManualClock(start: t0)
    ) throws -> KeyValueStore {
        try KeyValueStore(name: "baton", writer: writer, file: file, policy: policy, clock: clock)
    }

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kv-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("Typed getters as Apple's: values of their type, defaults for absent keys, nil for other types")
    func typedGetters() throws {
        let store = try Self.store()
        try store.set("dark", forKey: "theme")
        try store.set(true, forKey: "wrap")
        try store.set(.integer(42), forKey: "answer")
        try store.set(.real(1.5), forKey: "zoom")
        try store.set(.data(Data([1, 2])), forKey: "blob")
        try store.set(.array(["a"]), forKey: "list")
        try store.set(.dictionary(["k": "v"]), forKey: "dict")
        #expect(store.string(forKey: "theme") == "dark")
        #expect(store.bool(forKey: "wrap") && !store.bool(forKey: "absent"))
        #expect(store.longLong(forKey: "answer") == 42 && store.longLong(forKey: "theme") == 0)
        #expect(store.double(forKey: "zoom") == 1.5 && store.double(forKey: "answer") == 42)
        #expect(store.data(forKey: "blob") == Data([1, 2]))
        #expect(store.array(forKey: "list") == ["a"])
        #expect(store.dictionary(forKey: "dict") == ["k": "v"])
        #expect(store.string(forKey: "answer") == nil)
        #expect(store.dictionaryRepresentation.count == 7)
        try store.removeObject(forKey: "theme")
        #expect(store.object(forKey: "theme") == nil)
        #expect(store.entry(forKey: "theme")?.isTombstone == true, "a removal is a tombstone")
        #expect(store.dictionaryRepresentation.count == 6)
    }

    @Test("Limits: the 1,025th key, a 65-byte key, an empty key and a value past 1 MB fail, and nothing stored changes")
    func limits() throws {
        let store = try Self.store()
        try store.setAll(Dictionary(uniqueKeysWithValues: (0..<1_024).map { ("k\($0)", PropertyListValue?.some(.integer($0))) }))
        #expect(throws: KeyValueStoreError.tooManyKeys(limit: 1_024)) { try store.set(1, forKey: "one-more") }
        // Replacing a key that is there is not a new key.
        try store.set("x", forKey: "k0")
        try store.removeObject(forKey: "k1")
        try store.set(1, forKey: "one-more")
        #expect(throws: KeyValueStoreError.invalidKey(bytes: 65, limit: 64)) {
            try store.set(1, forKey: String(repeating: "é", count: 32) + "x")
        }
        #expect(throws: KeyValueStoreError.invalidKey(bytes: 0, limit: 64)) { try store.set(1, forKey: "") }
        let before = store.dictionaryRepresentation
        let big = PropertyListValue.data(Data(repeating: 7, count: 1_048_000))
        #expect(throws: KeyValueStoreError.self) { try store.set(big, forKey: "big") }
        #expect(store.dictionaryRepresentation == before)
        #expect(store.usage.keys == 1_024)
    }

    @Test("The 1 MB counts the key and the value as the canonical writer encodes it")
    func sizeCounting() throws {
        let store = try Self.store()
        try store.set(.data(Data(repeating: 0, count: 1_000)), forKey: "abc")
        let encoded = BinaryPropertyListWriter().write(.data(Data(repeating: 0, count: 1_000))).count
        #expect(store.usage.bytes == 3 + encoded)
        // Fill to just under the limit with one value: exactly at the limit passes, one byte over fails.
        let room = 1_048_576 - store.usage.bytes - 4
        let header = BinaryPropertyListWriter().write(.data(Data(repeating: 0, count: room))).count - room
        try store.set(.data(Data(repeating: 0, count: room - header)), forKey: "fill")
        #expect(store.usage.bytes == 1_048_576)
        #expect(throws: KeyValueStoreError.self) { try store.set(.data(Data([0])), forKey: "z") }
    }

    @Test("Conflicts: concurrent writes report `conflict`; a write that replaced what it had seen does not")
    func conflicts() async throws {
        let store = try Self.store(Self.a)
        var changes = store.changes().makeAsyncIterator()
        try store.set("mine", forKey: "k")
        let mine = try #require(store.entry(forKey: "k"))
        // b wrote concurrently (it replaced an older version), later: b wins, a conflict.
        let theirs = StoreEntry(key: "k", value: "theirs", version: StoreVersion(clock: mine.version.clock + 5, writer: Self.b))
        let taken = store.take([theirs], initial: false)
        #expect(taken.conflicts == ["k"] && store.string(forKey: "k") == "theirs")
        #expect(await changes.next() == KeyValueStoreChange(reason: .peerChange, keys: ["k"]))
        #expect(await changes.next() == KeyValueStoreChange(reason: .conflict, keys: ["k"]))
        // A loser arriving after the winner is reported too (the winner replaced nothing).
        let old = StoreEntry(key: "k", value: "old", version: StoreVersion(clock: mine.version.clock + 2, writer: Self.b))
        #expect(store.take([old], initial: false).conflicts == ["k"] && store.string(forKey: "k") == "theirs")
        #expect(store.take([old], initial: false).conflicts.isEmpty, "the same loser again (another peer's answer) is not a new conflict")
        // b writes again, having seen its own: a successor, no conflict.
        let next = StoreEntry(
            key: "k", value: "later", version: StoreVersion(clock: theirs.version.clock + 1, writer: Self.b), replaces: theirs.version)
        #expect(store.take([next], initial: false).conflicts.isEmpty)
        // A chain whose middle was missed is no conflict either.
        let skipped = StoreEntry(
            key: "k", value: "skip", version: StoreVersion(clock: next.version.clock + 9, writer: Self.b),
            replaces: StoreVersion(clock: next.version.clock + 4, writer: Self.b))
        #expect(store.take([skipped], initial: false).conflicts.isEmpty && store.string(forKey: "k") == "skip")
    }

    @Test("Keep local writes this device's value again after the winner; keep both keeps the loser under KEY.conflict.DEVICE")
    func policies() throws {
        let local = try Self.store(Self.a, policy: .keepLocal)
        try local.set("mine", forKey: "k")
        let mine = try #require(local.entry(forKey: "k"))
        let theirs = StoreEntry(key: "k", value: "theirs", version: StoreVersion(clock: mine.version.clock + 5, writer: Self.b))
        let taken = local.take([theirs], initial: false)
        #expect(local.string(forKey: "k") == "mine")
        let again = try #require(taken.writes.first)
        #expect(again.kept && again.replaces == theirs.version && again.version > theirs.version)
        // A kept write is never answered.
        let keptTheirs = StoreEntry(
            key: "k", value: "kept", version: StoreVersion(clock: again.version.clock + 5, writer: Self.b), kept: true)
        #expect(local.take([keptTheirs], initial: false).writes.isEmpty && local.string(forKey: "k") == "kept")

        let both = try Self.store(Self.a, policy: .keepBoth)
        try both.set("mine", forKey: "k")
        let held = try #require(both.entry(forKey: "k"))
        let winner = StoreEntry(key: "k", value: "theirs", version: StoreVersion(clock: held.version.clock + 5, writer: Self.b))
        both.take([winner], initial: false)
        let suffix = Self.a.bytes.prefix(4).map { String(format: "%02x", $0) }.joined()
        #expect(both.string(forKey: "k") == "theirs")
        #expect(both.string(forKey: "k.conflict." + suffix) == "mine")
    }

    @Test("A peer's entries past a limit are refused with quotaViolation, and what was stored stays")
    func peerQuota() async throws {
        let store = try Self.store(Self.a)
        try store.setAll(Dictionary(uniqueKeysWithValues: (0..<1_024).map { ("k\($0)", PropertyListValue?.some(.integer($0))) }))
        var changes = store.changes().makeAsyncIterator()
        let extra = StoreEntry(key: "extra", value: 1, version: StoreVersion(clock: 1, writer: Self.b))
        let taken = store.take([extra], initial: false)
        #expect(taken.refused == 1 && store.object(forKey: "extra") == nil && store.usage.keys == 1_024)
        #expect(await changes.next() == KeyValueStoreChange(reason: .quotaViolation, keys: ["extra"]))
    }

    @Test("On disk: 0600 binary plist, read back whole (tombstones, policy, clock); a damaged file is said as such")
    func file() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = StoreFile(folder: folder, name: "baton")
        let store = try Self.store(file: file, policy: .keepBoth)
        try store.set("dark", forKey: "theme")
        try store.set(.dictionary(["line": 12]), forKey: "last")
        try store.removeObject(forKey: "last")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = try Self.store(file: file)
        #expect(again.string(forKey: "theme") == "dark")
        #expect(again.entry(forKey: "last")?.isTombstone == true)
        #expect(again.policy == .keepBoth)
        #expect(again.digests == store.digests)
        try again.set("light", forKey: "theme")
        #expect(try #require(again.entry(forKey: "theme")).version > store.entry(forKey: "theme")!.version)

        try Data("not a plist".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(throws: StoreFile.ReadProblem.self) { try Self.store(file: file) }
        #expect(StoreFile.names(in: folder) == ["baton"])
    }

    @Test("Two programs of one machine on one file: neither write is lost, and each takes the other's from the file")
    func twoProgramsOneFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = StoreFile(folder: folder, name: "baton")
        let app = try Self.store(file: file)
        let cli = try Self.store(file: file)
        try cli.set("from the cli", forKey: "one")
        try app.set("from the app", forKey: "two")  // merges the file first: "one" stays on disk
        #expect(try file.read()?.entries.map(\.key).sorted() == ["one", "two"])
        #expect(app.string(forKey: "one") == "from the cli")
        #expect(cli.reloadIfChanged() == ["two"] && cli.string(forKey: "two") == "from the app")
        #expect(cli.reloadIfChanged().isEmpty, "nothing new the second time")
        #expect(app.digests == cli.digests)
        // The policy set by one program reaches the other through the file, and is not undone by its next write.
        cli.policy = .keepBoth
        app.reloadIfChanged()
        #expect(app.policy == .keepBoth)
        try app.set(3, forKey: "three")
        #expect(try file.read()?.policy == .keepBoth)
    }

    @Test("setAll is one write: checked as a whole, versions in key order, nothing written when a limit breaks")
    func setAll() throws {
        let store = try Self.store()
        try store.set(1, forKey: "gone")
        var sent: [[StoreEntry]] = []
        store.onWrites = { sent.append($0) }
        let values: [String: PropertyListValue?] = ["b": 2, "a": "one", "gone": nil]
        #expect(values.count == 3)
        try store.setAll(values)
        #expect(sent.count == 1 && sent[0].map(\.key) == ["a", "b", "gone"])
        #expect(sent[0][0].version < sent[0][1].version && sent[0][1].version < sent[0][2].version)
        #expect(store.string(forKey: "a") == "one" && store.object(forKey: "gone") == nil)
        let tooMany = Dictionary(uniqueKeysWithValues: (0..<1_023).map { ("k\($0)", PropertyListValue?.some(.integer($0))) })
        #expect(throws: KeyValueStoreError.tooManyKeys(limit: 1_024)) { try store.setAll(tooMany) }
        #expect(store.usage.keys == 2 && sent.count == 1, "nothing written, nothing sent")
    }

    @Test("With writesThrough off, writes reach the disk at synchronize()")
    func batching() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = StoreFile(folder: folder, name: "baton")
        let store = try Self.store(file: file)
        store.writesThrough = false
        try store.set(1, forKey: "a")
        #expect(try file.read() == nil)
        try store.synchronize()
        #expect(try file.read()?.entries.map(\.key) == ["a"])
    }

    @Test("Tombstones older than 30 days are forgotten, and not taken from peers")
    func tombstoneLifetime() throws {
        let clock = ManualClock(start: Self.t0)
        let store = try Self.store(clock: clock)
        let old = StoreEntry(key: "gone", value: nil, version: StoreVersion(clock: StoreVersion.clock(at: Self.t0.addingTimeInterval(-31 * 86_400)), writer: Self.b))
        store.take([old], initial: false)
        #expect(store.entry(forKey: "gone") == nil)
        try store.set(1, forKey: "x")
        try store.removeObject(forKey: "x")
        #expect(store.entry(forKey: "x")?.isTombstone == true)
        clock.advance(by: .seconds(31 * 86_400))
        try store.set(1, forKey: "y")
        #expect(store.entry(forKey: "x") == nil, "dropped once 30 days old")
    }
}
