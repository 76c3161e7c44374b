import Foundation
import PropertyList
import Testing
@testable import HandoffWire

/// `store.json`: a STORE datagram (docs/PROTOCOL.md, sections 12 and 18) from the vectors' device
/// (seed `00 01 … 1f`) for the store `baton`, carrying three entries — a string, a dictionary that
/// replaces an older write, and a kept tombstone written by bob (seed `20 … 3f`) — the digests of
/// those three, and one version taken from bob.
@Suite("Golden vectors: STORE")
struct StoreVectorTests {
    /// A version with the inputs it is made of: clock = `milliseconds` × 65,536 + `counter`, then
    /// the id of the device with seed `writerSeed`.
    struct Version: Codable, Equatable {
        var milliseconds: UInt64
        var counter: UInt64
        /// Hex of the writing device's identity seed.
        var writerSeed: String
        /// Hex of its device id (section 3).
        var writer: String
        /// Hex of the 24 bytes on the wire.
        var bytes: String
    }

    struct Entry: Codable, Equatable {
        var key: String
        /// The value as JSON; absent in a tombstone.
        var value: PropertyListValue?
        var version: Version
        var replaces: Version?
        var kept: Bool
        /// Hex of SHA-256 of the key's UTF-8 bytes.
        var keyHash: String
        /// The key's bucket: the high 4 bits of the first byte of `keyHash`.
        var bucket: Int
    }

    struct Vector: Codable, Equatable {
        var kind: String
        var groupKey: String
        var keyID: String
        var identitySeed: String
        var publicIdentity: String
        var deviceID: String
        var senderID: String
        var senderKey: String
        var sequence: UInt64
        var sentAt: Double
        var store: String
        var entries: [Entry]
        /// Hex of the 16 bucket digests (128 bytes) of a store holding exactly `entries`.
        var digests: String
        var took: [Version]
        var plaintext: String
        var signature: String
        var datagram: String
    }

    static let hex = GoldenVectorTests.hex
    static let unhex = GoldenVectorTests.unhex
    static let file = GoldenVectorTests.folder.appendingPathComponent("store.json")
    static let sequence: UInt64 = 7

    /// The inputs of one version: milliseconds since 1970, counter, writer.
    typealias Inputs = (milliseconds: UInt64, counter: UInt64, writer: DeviceIdentity)

    /// The program that wrote with `identity`: the vector's sender for its own device (instance
    /// `a8 … af`), else that device's tag with the instance `b0 … b7`.
    static func writer(_ identity: DeviceIdentity) -> SenderID {
        identity.seed == Fixtures.identity.seed
            ? Fixtures.sender3
            : SenderID(tag: DeviceTag(identity.publicIdentity.deviceID), instance: Array(0xB0...0xB7))!
    }

    static func version(_ inputs: Inputs) -> StoreVersion {
        StoreVersion(
            clock: inputs.milliseconds * StoreVersion.ticksPerMillisecond + inputs.counter, writer: writer(inputs.writer))
    }

    static func described(_ inputs: Inputs) -> Version {
        Version(
            milliseconds: inputs.milliseconds, counter: inputs.counter, writerSeed: hex(inputs.writer.seed),
            writer: hex(writer(inputs.writer).bytes), bytes: hex(version(inputs).bytes))
    }

    /// The three entries, each with the inputs of its version and of what it replaces.
    static let inputs: [(key: String, value: PropertyListValue?, version: Inputs, replaces: Inputs?, kept: Bool)] = [
        ("theme", "dark", (1_799_999_999_000, 0, Fixtures.identity), nil, false),
        ("lastFile", ["path": "notes.txt", "line": 12], (1_799_999_999_500, 1, Fixtures.identity),
         (1_799_999_000_000, 0, Fixtures.identity), false),
        ("draft", nil, (1_799_999_999_900, 0, Fixtures.bob), nil, true),
    ]
    static let tookInputs: [Inputs] = [(1_799_999_998_000, 0, Fixtures.bob)]

    static let entries = inputs.map {
        StoreEntry(key: $0.key, value: $0.value, version: version($0.version), replaces: $0.replaces.map(version), kept: $0.kept)
    }

    static let message = StoreMessage(
        store: "baton", digests: StoreDigests(entries: entries.map { ($0.key, $0.version) }), entries: entries,
        took: tookInputs.map(version))

    static func make() throws -> Vector {
        let handoff = HandoffMessage.store(message)
        let datagram = try GoldenVectorTests.codec.encode(
            handoff, identity: Fixtures.identity, senderID: Fixtures.sender3, sequence: sequence, sentAt: Fixtures.sentAt)
        let plaintext = DatagramCodec.plaintext(handoff, sentAt: Fixtures.sentAt)
        return Vector(
            kind: "store", groupKey: Fixtures.key.base64, keyID: hex(Fixtures.key.keyID.bytes),
            identitySeed: hex(Fixtures.identity.seed), publicIdentity: hex(Fixtures.identity.publicIdentity.bytes),
            deviceID: hex(Fixtures.identity.publicIdentity.deviceID.bytes), senderID: hex(Fixtures.sender3.bytes),
            senderKey: hex(SenderKeys.derive(sender: Fixtures.sender3, groupKey: Fixtures.key)), sequence: sequence,
            sentAt: Fixtures.sentAt.timeIntervalSince1970, store: message.store,
            entries: inputs.map {
                Entry(
                    key: $0.key, value: $0.value, version: described($0.version), replaces: $0.replaces.map(described),
                    kept: $0.kept, keyHash: hex(StoreDigests.keyHash($0.key)), bucket: StoreDigests.bucket(of: $0.key))
            },
            digests: hex(message.digests.bytes), took: tookInputs.map(described), plaintext: hex(plaintext),
            signature: hex(Fixtures.identity.sign(
                OpenedDatagram.signedBytes(header: Array(datagram.prefix(DatagramHeader.length)), payload: plaintext))),
            datagram: hex(datagram))
    }

    @Test("The STORE vector is the committed bytes, and the committed datagram decodes to the message")
    func vector() throws {
        let committed = try committedGolden(try Self.make(), file: Self.file)
        let bytes = Self.unhex(committed.datagram)
        let decoded = try DatagramCodec(keys: GroupKeys(current: GroupKey(base64: committed.groupKey))).decode(
            bytes, now: Date(timeIntervalSince1970: committed.sentAt), identity: GoldenVectorTests.listed)
        #expect(decoded.message == .store(Self.message))
        #expect(decoded.header.kind == .store)
        #expect(decoded.header.sequence == committed.sequence)
        #expect(decoded.sentAt == Fixtures.sentAt)
        #expect(Array(bytes.prefix(4)) == Array("BTN3".utf8))
        #expect(bytes.count == DatagramHeader.overhead + committed.plaintext.count / 2)
        // The committed inputs alone give the committed message: versions from their parts, the
        // digests from the entries.
        guard case .store(let store) = decoded.message else { Issue.record("not a STORE"); return }
        #expect(store.entries.count == 3)
        #expect(committed.entries.count == store.entries.count)
        for (entry, described) in zip(store.entries, committed.entries) {
            #expect(entry.key == described.key)
            #expect(entry.value == described.value)
            #expect(Self.hex(entry.version.bytes) == described.version.bytes)
            #expect(entry.version.clock == described.version.milliseconds * 65_536 + described.version.counter)
            #expect(entry.replaces.map { Self.hex($0.bytes) } == described.replaces?.bytes)
            #expect(entry.kept == described.kept)
            #expect(StoreDigests.bucket(of: entry.key) == described.bucket)
        }
        #expect(Self.hex(StoreDigests(entries: store.entries.map { ($0.key, $0.version) }).bytes) == committed.digests)
        #expect(store.took.map { Self.hex($0.bytes) } == committed.took.map(\.bytes))
        #expect(store.entries[2].isTombstone)
        #expect(store.entries[2].version.writerTag == DeviceTag(Fixtures.bob.publicIdentity.deviceID))
    }
}
