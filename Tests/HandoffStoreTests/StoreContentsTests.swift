import Foundation
import Testing
import Handoff
import HandoffWire
import PropertyList
@testable import HandoffStore

/// One store's entries as a value: versions, which write wins, limits and digests, with the
/// time as an argument (docs/PROTOCOL.md, section 18).
@Suite("StoreContents: versions, merging, limits and digests as a value")
struct StoreContentsTests {
    static let a = SenderID(bytes: Array(repeating: 0xA1, count: 8) + Array(repeating: 1, count: 8))!
    static let b = SenderID(bytes: Array(repeating: 0xB0, count: 8) + Array(repeating: 2, count: 8))!
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Each write's version is after every clock made or taken, even when the wall clock goes back")
    func versionsMoveForward() throws {
        var contents = StoreContents()
        let first = try #require(try contents.write(["a": 1], writer: Self.a, now: Self.t0).first?.version)
        let second = try #require(try contents.write(["a": 2], writer: Self.a, now: Self.t0.addingTimeInterval(-3_600)).first)
        #expect(second.version > first && second.version.clock == first.clock + 1)
        #expect(second.replaces == first, "a write names the version it replaced")
        // An entry taken from the future (within 60 s) moves the clock past it.
        let ahead = StoreEntry(key: "b", value: 1, version: StoreVersion(clock: StoreVersion.clock(at: Self.t0.addingTimeInterval(50)), writer: Self.b))
        _ = contents.take([ahead], writer: Self.a, policy: .newest, now: Self.t0)
        let third = try #require(try contents.write(["c": 3], writer: Self.a, now: Self.t0).first)
        #expect(third.version > ahead.version)
        // More than 60 s ahead is refused.
        let far = StoreEntry(key: "d", value: 1, version: StoreVersion(clock: StoreVersion.clock(at: Self.t0.addingTimeInterval(61)), writer: Self.b))
        #expect(contents.take([far], writer: Self.a, policy: .newest, now: Self.t0).refused == 1)
        #expect(contents["d"] == nil)
    }

    @Test("Every order of arrival ends with the same winner, and the digests agree")
    func sameWinnerInAnyOrder() {
        let writes = (0..<30).map { i in
            let clock = UInt64(1_000 + i * 37 % 11)
            let writer: SenderID = i % 2 == 0 ? Self.a : Self.b
            return StoreEntry(key: "k\(i % 7)", value: .integer(i), version: StoreVersion(clock: clock, writer: writer))
        }
        #expect(writes.count == 30)
        var digests: Set<StoreDigests> = []
        var values: Set<[String: PropertyListValue]> = []
        var generator = SplitMix64(seed: 21)
        for _ in 0..<20 {
            var contents = StoreContents()
            for entry in writes.shuffled(using: &generator) { _ = contents.take([entry], writer: Self.b, policy: .newest, now: Self.t0) }
            digests.insert(contents.digests)
            values.insert(contents.values)
        }
        #expect(digests.count == 1 && values.count == 1)
        var all = StoreContents()
        _ = all.take(writes, writer: Self.b, policy: .newest, now: Self.t0)
        #expect(digests.first == all.digests)
    }

    @Test("The digests, hashed again only for the buckets that changed, equal the digests computed afresh after every change")
    func digestCache() throws {
        var contents = StoreContents()
        var generator = SplitMix64(seed: 5)
        var date = Self.t0
        for step in 0..<300 {
            date = date.addingTimeInterval(0.001)
            let key = "key\(Int.random(in: 0..<40, using: &generator))"
            switch step % 3 {
            case 0: _ = try contents.write([key: .integer(step)], writer: Self.a, now: date)
            case 1: _ = try contents.write([key: nil], writer: Self.a, now: date)
            default:
                let entry = StoreEntry(key: key, value: "peer", version: StoreVersion(clock: StoreVersion.clock(at: date) + 1, writer: Self.b))
                _ = contents.take([entry], writer: Self.a, policy: .newest, now: date)
            }
            let afresh = StoreDigests(entries: contents.entries.values.map { (key: $0.key, version: $0.version) })
            #expect(contents.digests == afresh, "after step \(step)")
        }
        #expect(contents.digests != .empty)
    }

    @Test("A write is checked whole: one key over a limit leaves everything as it was; removing a key without a value is nothing")
    func writeIsWhole() throws {
        var contents = StoreContents()
        let made = try contents.write(["b": 2, "a": "one"], writer: Self.a, now: Self.t0)
        #expect(made.map(\.key) == ["a", "b"] && made[0].version < made[1].version)
        let before = (contents.digests, contents.usage.keys, contents.usage.bytes, contents.greatestClock)
        #expect(throws: KeyValueStoreError.invalidKey(bytes: 65, limit: 64)) {
            try contents.write(["c": 3, String(repeating: "k", count: 65): 1], writer: Self.a, now: Self.t0)
        }
        let full = Dictionary(uniqueKeysWithValues: (0..<1_023).map { ("k\($0)", PropertyListValue?.some(.integer($0))) })
        #expect(throws: KeyValueStoreError.tooManyKeys(limit: 1_024)) { try contents.write(full, writer: Self.a, now: Self.t0) }
        #expect(throws: KeyValueStoreError.entryTooLarge(bytes: 2_000, limit: 1_200)) {
            try contents.write(["big": "x"], writer: Self.a, now: Self.t0, measure: { _ in (2_000, 1_200) })
        }
        #expect((contents.digests, contents.usage.keys, contents.usage.bytes, contents.greatestClock) == before)
        #expect(try contents.write(["absent": nil], writer: Self.a, now: Self.t0).isEmpty)
        let removed = try contents.write(["a": nil], writer: Self.a, now: Self.t0)
        #expect(removed.first?.isTombstone == true && contents.usage.keys == 1)
    }

    @Test("Holding the file's entries takes only newer versions, and moves the clock past the file's")
    func holdNewer() throws {
        var contents = StoreContents()
        let mine = try #require(try contents.write(["a": 1, "b": 1], writer: Self.a, now: Self.t0).last)
        let older = StoreEntry(key: "a", value: 0, version: StoreVersion(clock: 5, writer: Self.b))
        let newer = StoreEntry(key: "b", value: 2, version: StoreVersion(clock: mine.version.clock + 10, writer: Self.b))
        #expect(contents.holdNewer([older, newer], clock: mine.version.clock + 100) == ["b"])
        #expect(contents["a"]?.value == 1 && contents["b"]?.value == 2)
        #expect(contents.greatestClock == mine.version.clock + 100)
    }

    @Test("What a take comes to is told as changes in order: the keys (initialSync or peerChange), the conflicts, the refusals")
    func takenChanges() throws {
        var contents = StoreContents()
        _ = try contents.write(["k": "mine"], writer: Self.a, now: Self.t0)
        let clock = StoreVersion.clock(at: Self.t0) + 100
        let theirs = StoreEntry(key: "k", value: "theirs", version: StoreVersion(clock: clock, writer: Self.b))
        let taken = contents.take([theirs], writer: Self.a, policy: .newest, now: Self.t0)
        #expect(taken.took == [theirs.version] && taken.conflicts == ["k"])
        #expect(
            taken.changes(initial: true) == [
                KeyValueStoreChange(reason: .initialSync, keys: ["k"]), KeyValueStoreChange(reason: .conflict, keys: ["k"]),
            ])
        var empty = StoreContents()
        #expect(empty.take([], writer: Self.a, policy: .newest, now: Self.t0).changes(initial: false).isEmpty)
    }
}
