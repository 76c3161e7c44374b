import Foundation
import Testing
import Handoff
import HandoffWire
import PropertyList
@testable import HandoffStore

/// The `resolve` policy as a value (docs/PROTOCOL.md, section 18): the merge holds keep both's
/// result and says what the resolver is to settle, with the value both writers replaced; the
/// values replaced are kept 30 days, in the room the values leave.
@Suite("StoreContents: the resolve policy and the values writes replaced")
struct StoreResolveTests {
    static let a = StoreContentsTests.a
    static let b = StoreContentsTests.b
    static let t0 = StoreContentsTests.t0

    /// A's store after: a wrote n = 1 (taken by b too), then n = 3; and b's write n = 5, which
    /// replaced a's first and came later.
    static func crossedWrites() throws -> (contents: StoreContents, first: StoreEntry, mine: StoreEntry, theirs: StoreEntry) {
        var contents = StoreContents()
        let first = try #require(try contents.write(["n": 1], writer: a, now: t0).first)
        let mine = try #require(try contents.write(["n": 3], writer: a, now: t0.addingTimeInterval(1)).first)
        let theirs = StoreEntry(
            key: "n", value: 5, version: StoreVersion(clock: StoreVersion.clock(at: t0.addingTimeInterval(2)), writer: b),
            replaces: first.version)
        return (contents, first, mine, theirs)
    }

    @Test("A conflict under resolve on the loser's writer: keep both's copy held and sent, and a request with winner, loser and ancestor")
    func requestWithAncestor() throws {
        var (contents, _, mine, theirs) = try Self.crossedWrites()
        let taken = contents.take([theirs], writer: Self.a, policy: .resolve, now: Self.t0.addingTimeInterval(3))
        #expect(contents["n"]?.value == 5, "the greater version wins the key at once")
        let copyKey = "n.conflict.a1a1a1a1"
        #expect(contents[copyKey]?.value == 3, "keep both's result is the fallback")
        #expect(taken.writes.map(\.key) == [copyKey] && taken.conflicts == ["n"])
        let request = try #require(taken.resolutions.first)
        #expect(taken.resolutions.count == 1)
        #expect(request.key == "n" && request.winner == theirs && request.loser == mine)
        #expect(request.ancestor == 1, "both replaced a's first write")
        #expect(request.fallback?.key == copyKey)
    }

    @Test("Only the device that wrote the loser resolves; a winner that replaced nothing known has no ancestor")
    func onlyTheLosersWriter() throws {
        var (contents, _, _, theirs) = try Self.crossedWrites()
        let c = SenderID(bytes: Array(repeating: 0xC0, count: 16))!
        var other = StoreContents()
        _ = other.take([contents["n"]!], writer: c, policy: .resolve, now: Self.t0.addingTimeInterval(3))
        let atOther = other.take([theirs], writer: c, policy: .resolve, now: Self.t0.addingTimeInterval(3))
        #expect(atOther.conflicts == ["n"] && atOther.resolutions.isEmpty && atOther.writes.isEmpty)
        let unknown = StoreEntry(key: "n", value: 7, version: StoreVersion(clock: theirs.version.clock + 1, writer: Self.b))
        let taken = contents.take([unknown], writer: Self.a, policy: .resolve, now: Self.t0.addingTimeInterval(3))
        #expect(taken.resolutions.count == 1 && taken.resolutions.first?.ancestor == nil)
    }

    @Test("A removal that lost is resolved too, without a copy; a winner that saw the loser is no conflict")
    func removalsAndNoConflict() throws {
        var contents = StoreContents()
        let first = try #require(try contents.write(["n": 1], writer: Self.a, now: Self.t0).first)
        let removal = try #require(try contents.write(["n": nil], writer: Self.a, now: Self.t0.addingTimeInterval(1)).first)
        let theirs = StoreEntry(
            key: "n", value: 2, version: StoreVersion(clock: removal.version.clock + 5, writer: Self.b), replaces: first.version)
        let taken = contents.take([theirs], writer: Self.a, policy: .resolve, now: Self.t0.addingTimeInterval(2))
        let request = try #require(taken.resolutions.first)
        #expect(request.loser.value == nil && request.fallback == nil && request.ancestor == 1 && taken.writes.isEmpty)
        let after = StoreEntry(
            key: "n", value: 3, version: StoreVersion(clock: theirs.version.clock + 5, writer: Self.b), replaces: theirs.version)
        #expect(contents.take([after], writer: Self.a, policy: .resolve, now: Self.t0.addingTimeInterval(2)).resolutions.isEmpty)
    }

    @Test("A value replaced is kept 30 days after it was replaced, then dropped")
    func ancestorsExpire() throws {
        var (contents, first, _, _) = try Self.crossedWrites()
        #expect(contents.ancestors.value(of: "n", at: first.version) == 1)
        contents.dropOldTombstones(now: Self.t0.addingTimeInterval(29 * 86_400))
        #expect(contents.ancestors.value(of: "n", at: first.version) == 1)
        contents.dropOldTombstones(now: Self.t0.addingTimeInterval(30 * 86_400 + 2))
        #expect(contents.ancestors.value(of: "n", at: first.version) == nil && contents.ancestors.bytes == 0)
    }

    @Test("Values replaced live in the room the values leave: the oldest go first, and no write fails for them")
    func ancestorsMakeRoom() throws {
        let size = StoreEntry(key: "k", value: .string(String(repeating: "x", count: 30)), version: StoreVersion(clock: 1, writer: Self.a)).size
        var limits = KeyValueStoreLimits()
        limits.totalBytes = 3 * size
        var contents = StoreContents(limits: limits)
        let first = try #require(try contents.write(["k": .string(String(repeating: "x", count: 30))], writer: Self.a, now: Self.t0).first)
        let second = try #require(try contents.write(["k": .string(String(repeating: "y", count: 30))], writer: Self.a, now: Self.t0).first)
        _ = try contents.write(["k": .string(String(repeating: "z", count: 30))], writer: Self.a, now: Self.t0)
        #expect(contents.ancestors.value(of: "k", at: first.version) != nil && contents.ancestors.value(of: "k", at: second.version) != nil)
        // A second key leaves room for one of them: the older goes.
        _ = try contents.write(["j": .string(String(repeating: "w", count: 30))], writer: Self.a, now: Self.t0)
        #expect(contents.ancestors.value(of: "k", at: first.version) == nil && contents.ancestors.value(of: "k", at: second.version) != nil)
        #expect(contents.usage.bytes + contents.ancestors.bytes <= 3 * size)
        _ = try contents.write(["i": .string(String(repeating: "v", count: 20))], writer: Self.a, now: Self.t0)
        #expect(contents.ancestors.bytes == 0, "a write that needs their room takes it")
    }

    @Test("The store's file keeps the resolve policy and the values replaced; a file without them reads as before")
    func fileKeepsThem() throws {
        let folder = NSTemporaryDirectory() + "resolve-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = StoreFile(folder: folder, name: "s")
        let (contents, first, _, _) = try Self.crossedWrites()
        var written = StoreFile.Contents(policy: .resolve, clock: contents.greatestClock, entries: contents.sortedEntries)
        written.ancestors = contents.ancestors.all
        try file.write(written)
        let read = try #require(try file.read())
        #expect(read.policy == .resolve && read.ancestors == written.ancestors && read.ancestors.count == 1)
        let again = StoreContents(clock: read.clock, entries: read.entries, ancestors: read.ancestors)
        #expect(again.ancestors.value(of: "n", at: first.version) == 1)
        try file.write(StoreFile.Contents(policy: .keepBoth, clock: 1, entries: read.entries))
        #expect(try file.read()?.ancestors.isEmpty == true && file.read()?.policy == .keepBoth)
    }
}
