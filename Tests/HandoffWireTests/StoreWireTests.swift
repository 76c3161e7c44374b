import Crypto
import Foundation
import PropertyList
import Testing
@testable import HandoffWire

/// The key-value store's wire types (docs/PROTOCOL.md, section 18): versions, digests, and what a
/// STORE payload must hold to be read.
@Suite("Key-value store: versions, digests, STORE payloads")
struct StoreWireTests {
    static let alice = SenderID.random(device: Fixtures.identity.publicIdentity.deviceID)
    static let bob = SenderID.random(device: Fixtures.bob.publicIdentity.deviceID)
    /// The clock at `Fixtures.sentAt`: 1,800,000,000,000 ms × 65,536.
    static let wall: UInt64 = 1_800_000_000_000 * 65_536

    /// A version with any 16 writer bytes.
    static func version(_ clock: UInt64, writer: [UInt8]) -> StoreVersion {
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: clock >> (56 - 8 * $0)) } + writer
        return StoreVersion(bytes: bytes)!
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    // MARK: - Versions

    @Test func versionsOrderByClockFirstThenWriterBytesUnsigned() {
        let low = [UInt8](repeating: 0x00, count: 16)
        let high = [UInt8](repeating: 0xFF, count: 16)
        // The clock decides, whatever the writers.
        #expect(Self.version(1, writer: high) < Self.version(2, writer: low))
        #expect(!(Self.version(2, writer: low) < Self.version(1, writer: high)))
        // The clock's bytes compare unsigned too: a clock with its top bit set is the greater.
        #expect(Self.version(0x7FFF_FFFF_FFFF_FFFF, writer: high) < Self.version(0x8000_0000_0000_0000, writer: low))
        // Equal clocks: the writer's bytes, unsigned (0x80 after 0x7f), first byte that differs.
        let a = Self.version(5, writer: [0x7F] + [UInt8](repeating: 0xFF, count: 15))
        let b = Self.version(5, writer: [0x80] + [UInt8](repeating: 0x00, count: 15))
        #expect(a < b)
        #expect(!(b < a))
        let c = Self.version(5, writer: [UInt8](repeating: 0x11, count: 15) + [0x01])
        let d = Self.version(5, writer: [UInt8](repeating: 0x11, count: 15) + [0x02])
        #expect(c < d)
        // A version is not before itself, and equal bytes are equal versions.
        #expect(!(a < a))
        #expect(a == Self.version(5, writer: [0x7F] + [UInt8](repeating: 0xFF, count: 15)))
        // Sorting by the type agrees with sorting the 24 bytes.
        let all = [d, b, Self.version(1, writer: high), c, a, Self.version(2, writer: low)]
        #expect(all.sorted().map(\.bytes) == all.map(\.bytes).sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func versionBytesRoundTrip() throws {
        let version = StoreVersion(clock: 0x0102_0304_0506_0708, writer: Self.alice)
        #expect(version.bytes.count == StoreVersion.length)
        #expect(Self.hex(version.bytes) == "0102030405060708" + Self.hex(Self.alice.bytes))
        #expect(Self.hex(version.bytes).dropFirst(16).hasPrefix("2614dcb96a1b161f"), "the writer begins with its device's tag")
        let read = try #require(StoreVersion(bytes: version.bytes))
        #expect(read == version)
        #expect(read.clock == 0x0102_0304_0506_0708)
        #expect(read.writer == Self.alice.bytes)
        // Any 24 bytes read back as themselves, a slice too; other lengths do not read.
        let odd = Array(0xE8...0xFF) as [UInt8]
        #expect(odd.count == 24)
        #expect(StoreVersion(bytes: odd)?.bytes == odd)
        #expect(StoreVersion(bytes: ([0] + odd)[1...])?.bytes == odd)
        #expect(StoreVersion(bytes: odd.prefix(23)) == nil)
        #expect(StoreVersion(bytes: odd + [0]) == nil)
        #expect(StoreVersion(bytes: []) == nil)
    }

    @Test func nextClockIsTheWallClockOrOneMoreThanTheGreatestSeen() {
        let now = Fixtures.sentAt
        #expect(StoreVersion.clock(at: now) == Self.wall)
        // A fast clock (ahead of everything seen): the wall clock, counter 0.
        #expect(StoreVersion.nextClock(after: Self.wall - 1, now: now) == Self.wall)
        #expect(StoreVersion.nextClock(after: 0, now: now) == Self.wall)
        // A slow clock (behind what was made or taken): greatest + 1, whatever the wall clock says.
        let ahead = Self.wall + 5_000 * 65_536
        #expect(StoreVersion.nextClock(after: ahead, now: now) == ahead + 1)
        #expect(StoreVersion.nextClock(after: Self.wall, now: now) == Self.wall + 1)
        // Within one millisecond, the counter counts the writes.
        let first = StoreVersion.nextClock(after: 0, now: now)
        let second = StoreVersion.nextClock(after: first, now: now.addingTimeInterval(0.0004))
        #expect(second == first + 1)
        // A millisecond later the wall clock passes the counter again.
        #expect(StoreVersion.nextClock(after: second, now: now.addingTimeInterval(0.001)) == Self.wall + 65_536)
    }

    // MARK: - Digests

    /// 20 keys: more than 16, so at least one bucket holds two and its order matters.
    static let keys = (0..<20).map { "key\($0)" }

    static func entries(_ keys: [String]) -> [(key: String, version: StoreVersion)] {
        keys.enumerated().map { (key: $1, version: StoreVersion(clock: Self.wall + UInt64($0), writer: $0 % 2 == 0 ? alice : bob)) }
    }

    @Test func anEmptyStoreHasSixteenEmptyBucketDigests() {
        let expected = String(repeating: "e3b0c44298fc1c14", count: 16)
        #expect(Self.hex(StoreDigests.emptyBucket) == "e3b0c44298fc1c14")
        #expect(Self.hex(StoreDigests.empty.bytes) == expected)
        #expect(Self.hex(StoreDigests(entries: [(key: String, version: StoreVersion)]()).bytes) == expected)
        #expect(StoreDigests.empty.bytes.count == 128)
    }

    @Test func digestsDoNotDependOnTheOrderOfTheEntries() {
        let entries = Self.entries(Self.keys)
        #expect(entries.count == 20)
        // At least one bucket holds two keys or more, so the order inside a bucket is exercised.
        let buckets = Dictionary(grouping: Self.keys, by: StoreDigests.bucket(of:))
        #expect(buckets.values.contains { $0.count >= 2 })
        let digests = StoreDigests(entries: entries)
        #expect(digests != StoreDigests.empty)
        #expect(digests.bytes.count == StoreDigests.length)
        let orders = [
            Array(entries.reversed()), Array(entries[7...] + entries[..<7]),
            entries.sorted { $0.key < $1.key }, entries.sorted { $0.key > $1.key },
        ]
        for order in orders {
            #expect(order.count == entries.count)
            #expect(StoreDigests(entries: order) == digests)
        }
        // Buckets with no key keep the empty digest; buckets with keys do not.
        #expect((0..<16).allSatisfy { (buckets[$0] == nil) == (Array(digests.bucket($0)) == StoreDigests.emptyBucket) })
    }

    @Test func changingOneVersionChangesOnlyThatKeysBucket() throws {
        let entries = Self.entries(Self.keys)
        let digests = StoreDigests(entries: entries)
        var changedAny = 0
        for index in [0, 5, 19] {
            var changed = entries
            let old = changed[index].version
            changed[index].version = StoreVersion(clock: old.clock + 1, writer: Self.alice)
            let bucket = StoreDigests.bucket(of: changed[index].key)
            #expect(StoreDigests(entries: changed).buckets(differingFrom: digests) == [bucket])
            #expect(digests.buckets(differingFrom: StoreDigests(entries: changed)) == [bucket])
            // The writer alone counts too.
            changed[index].version = StoreVersion(clock: old.clock, writer: old.writer == Self.alice.bytes ? Self.bob : Self.alice)
            #expect(StoreDigests(entries: changed).buckets(differingFrom: digests) == [bucket])
            changedAny += 1
        }
        #expect(changedAny == 3)
        // A bucket digest is the first 8 bytes of SHA-256 over SHA-256(key) ‖ version, by key hash:
        // one key alone in a store gives exactly that in its bucket.
        let only = try #require(entries.first)
        let single = StoreDigests(entries: [only])
        let hash = StoreDigests.keyHash(only.key)
        #expect(Array(single.bucket(StoreDigests.bucket(of: only.key)))
                == Array(SHA256.hash(data: hash + only.version.bytes).prefix(8)))
    }

    // MARK: - STORE payloads

    static let sentAt = Fixtures.sentAt

    static var goodEntry: [String: PropertyListValue] {
        ["key": "theme", "value": "dark", "version": .data(Data(StoreVersion(clock: wall, writer: alice).bytes))]
    }

    static var goodPayload: [String: PropertyListValue] {
        [
            "sentAt": .date(sentAt), "store": "baton", "digests": .data(Data(StoreDigests.empty.bytes)),
            "entries": .array([.dictionary(goodEntry)]),
            "took": .array([.data(Data(StoreVersion(clock: wall, writer: bob).bytes))]),
        ]
    }

    static func decode(_ payload: [String: PropertyListValue]) throws(RejectionReason) -> HandoffMessage {
        try HandoffMessage.decode(kind: .store, payload: payload).message
    }

    static func with(entry change: (inout [String: PropertyListValue]) -> Void) -> [String: PropertyListValue] {
        var entry = goodEntry
        change(&entry)
        var payload = goodPayload
        payload["entries"] = .array([.dictionary(entry)])
        return payload
    }

    @Test func theGoodPayloadReads() throws {
        guard case .store(let message) = try Self.decode(Self.goodPayload) else { Issue.record("not a STORE"); return }
        #expect(message.store == "baton")
        #expect(message.entries.map(\.key) == ["theme"])
        #expect(message.took == [StoreVersion(clock: Self.wall, writer: Self.bob)])
    }

    @Test func aPayloadWithoutStoreIsMissingAKey() {
        var payload = Self.goodPayload
        payload["store"] = nil
        #expect(throws: RejectionReason.missingKey) { try Self.decode(payload) }
    }

    @Test func digestsOf127BytesAreInvalid() {
        var payload = Self.goodPayload
        payload["digests"] = .data(Data(repeating: 0, count: 127))
        #expect(throws: RejectionReason.invalidValue) { try Self.decode(payload) }
        payload["digests"] = .data(Data(repeating: 0, count: 128))
        #expect(throws: Never.self) { try Self.decode(payload) }
    }

    @Test func anEntryWithoutVersionIsMissingAKey() {
        let payload = Self.with { $0["version"] = nil }
        #expect(throws: RejectionReason.missingKey) { try Self.decode(payload) }
    }

    @Test func anEntryWithA65ByteKeyIsInvalid() {
        let long = String(repeating: "k", count: 65)
        #expect(long.utf8.count == 65)
        #expect(throws: RejectionReason.invalidValue) { try Self.decode(Self.with { $0["key"] = .string(long) }) }
        // 64 bytes is the limit itself, and reads.
        #expect(throws: Never.self) { try Self.decode(Self.with { $0["key"] = .string(String(long.dropFirst())) }) }
    }

    @Test func aTookElementOf23BytesIsInvalid() {
        var payload = Self.goodPayload
        payload["took"] = .array([.data(Data(repeating: 1, count: 23))])
        #expect(throws: RejectionReason.invalidValue) { try Self.decode(payload) }
    }

    @Test func typesAreCheckedBeforeLengthsAcrossTheWholeMessage() {
        // A 23-byte `took` element and a second entry without `version`: the missing key is said.
        var payload = Self.goodPayload
        payload["took"] = .array([.data(Data(repeating: 1, count: 23))])
        var second = Self.goodEntry
        second["version"] = nil
        payload["entries"] = .array([.dictionary(Self.goodEntry), .dictionary(second)])
        #expect(throws: RejectionReason.missingKey) { try Self.decode(payload) }
        // A short `replaces` and a `kept` of another type in one entry: the type is said.
        let both = Self.with {
            $0["replaces"] = .data(Data(repeating: 2, count: 5))
            $0["kept"] = "yes"
        }
        #expect(throws: RejectionReason.wrongType) { try Self.decode(both) }
    }

    @Test func aStoreStateOutOfItsRangesIsInvalidAndWithinThemReads() throws {
        func payload(size: Int, digest: Int = 32, port: Int = 47_800, revision: Int = 1) -> [String: PropertyListValue] {
            var p = Self.goodPayload
            p["state"] = .dictionary([
                "size": .integer(size), "digest": .data(Data(repeating: 9, count: digest)), "port": .integer(port),
                "revision": .integer(revision),
            ])
            return p
        }
        guard case .store(let message) = try Self.decode(payload(size: 4_194_304)) else { Issue.record("not a STORE"); return }
        #expect(message.state == StoreState(size: 4_194_304, digest: Array(repeating: 9, count: 32), port: 47_800, revision: 1))
        for bad in [payload(size: 4_194_305), payload(size: 0), payload(size: 10, digest: 31), payload(size: 10, port: 0),
                    payload(size: 10, port: 65_536), payload(size: 10, revision: 0)] {
            #expect(throws: RejectionReason.invalidValue) { try Self.decode(bad) }
        }
        var missing = payload(size: 10)
        missing["state"] = .dictionary(["size": 10])
        #expect(throws: RejectionReason.missingKey) { try Self.decode(missing) }
    }

    @Test func aStoreNameStartingWithADotIsInvalid() {
        var payload = Self.goodPayload
        payload["store"] = ".baton"
        #expect(throws: RejectionReason.invalidValue) { try Self.decode(payload) }
        payload["store"] = "ba.ton"
        #expect(throws: Never.self) { try Self.decode(payload) }
    }

    @Test func aMessageWithATombstoneReplacesAndKeptRoundTrips() throws {
        let theme = StoreEntry(
            key: "theme", value: "dark", version: StoreVersion(clock: Self.wall + 2, writer: Self.alice),
            replaces: StoreVersion(clock: Self.wall - 65_536, writer: Self.bob))
        let draft = StoreEntry(key: "draft", value: nil, version: StoreVersion(clock: Self.wall + 1, writer: Self.bob), kept: true)
        let entries = [theme, draft]
        let message = StoreMessage(
            store: "baton", digests: StoreDigests(entries: entries.map { ($0.key, $0.version) }), entries: entries,
            took: [StoreVersion(clock: Self.wall, writer: Self.bob)])
        // Through the canonical bytes and the reader, as a datagram's payload goes.
        let plaintext = DatagramCodec.plaintext(.store(message), sentAt: Self.sentAt)
        guard case .dictionary(let payload) = try BinaryPropertyListReader().read(plaintext) else {
            Issue.record("not a dictionary"); return
        }
        let (decoded, sentAt) = try HandoffMessage.decode(kind: .store, payload: payload)
        #expect(decoded == .store(message))
        #expect(sentAt == Self.sentAt)
        guard case .store(let read) = decoded else { Issue.record("not a STORE"); return }
        #expect(read.entries.count == 2)
        #expect(read.entries.first?.replaces == theme.replaces)
        #expect(read.entries.first?.kept == false)
        #expect(read.entries.last?.isTombstone == true)
        #expect(read.entries.last?.kept == true)
        // What is absent stays absent on the wire: no `value` in the tombstone, no `kept` when false.
        guard case .array(let written) = payload["entries"], written.count == 2,
              case .dictionary(let first) = written[0], case .dictionary(let second) = written[1]
        else { Issue.record("entries are not two dictionaries"); return }
        #expect(first["kept"] == nil)
        #expect(first["replaces"] == .data(Data(theme.replaces!.bytes)))
        #expect(second["value"] == nil)
        #expect(second["kept"] == .boolean(true))
    }
}
