// Writes the seed corpora under Fuzz/corpus/ (run by `scripts/fuzz seeds`; the results are committed).
//
//   swiftc … Fuzz/Tools/MakeSeeds.swift Fuzz/FuzzFixtures.swift … && ./make-seeds REPO_ROOT
//
// Seeds are small valid inputs in each target's input format (see the target files):
// version 3 datagrams of every kind, sealed with the fuzz key and signed as the shared device,
// their plaintexts, the plists that broke Foundation, the bundled registry as XML and as binary,
// and a few key sequences.
import Foundation
import Handoff
import PropertyList
import PropertyListFoundation
import HandoffWire

@main
struct MakeSeeds {
    static func main() throws {
        guard CommandLine.arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: make-seeds REPO_ROOT\n".utf8))
            exit(2)
        }
        let root = URL(fileURLWithPath: CommandLine.arguments[1])
        let corpus = root.appendingPathComponent("Fuzz/corpus")
        let plistVectors = root.appendingPathComponent("Tests/PropertyListTests/Vectors/plist")
        let shared = try ["seed-valid", "bplist-set-segv", "bplist-reference-cycle"].map {
            ($0, Array(try Data(contentsOf: plistVectors.appendingPathComponent("\($0).bplist"))))
        }
        try datagramSeeds(shared: shared, into: corpus.appendingPathComponent("datagram"))
        try registrySeeds(root: root, shared: shared, into: corpus.appendingPathComponent("registry"))
        try editorSeeds(into: corpus.appendingPathComponent("editor"))
    }

    static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: folder.appendingPathComponent(name))
        print("\(folder.lastPathComponent)/\(name): \(bytes.count) bytes")
    }

    // MARK: Datagrams

    static var messages: [(String, HandoffMessage)] {
        let counter = ActivityRecord(
            activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11", activityType: "dev.baton.counter", revision: 3,
            savedAt: FuzzFixtures.now.addingTimeInterval(-0.25), userInfo: ["count": .integer(42)], title: "Counting",
            peer: FuzzFixtures.peer)
        let editing = ActivityRecord(
            activityID: "0B3F6C2A-9D41-4E8B-A0C7-5E2D1F8A7B64", activityType: "dev.baton.editing", revision: 12,
            savedAt: FuzzFixtures.now.addingTimeInterval(-1),
            userInfo: ["text": .string("héllo 中文 👋🏽\nsecond line"), "cursorLine": .integer(1), "cursorColumn": .integer(6),
                       "fileName": .string("notes.txt")],
            title: "notes.txt", requiredUserInfoKeys: ["text", "cursorLine", "cursorColumn"],
            webpageURL: "https://example.com/notes", keywords: ["notes", "draft"],
            expiresAt: FuzzFixtures.now.addingTimeInterval(600), peer: FuzzFixtures.peer)
        return [
            ("announce-counter", .announce(counter)),
            ("announce-editing", .announce(editing)),
            ("withdraw", .withdraw(activityID: counter.activityID)),
            ("query-all", .query(types: nil)),
            ("query-types", .query(types: ["dev.baton.counter", "dev.baton.editing"])),
            ("continued", .continued(activityID: counter.activityID, peer: FuzzFixtures.peer)),
            ("offer", .offer(counter, state: StateOffer(size: 3_000, digest: Array(repeating: 0x5E, count: 32), port: 47_789))),
            ("devices-empty", .devices(statements: [], digest: Statement.setDigest([]))),
            ("devices-introduce", .devices(statements: [introduction.bytes], digest: Statement.setDigest([introduction.bytes]))),
            ("store-entries", .store(storeMessage)),
            ("store-state", .store(StoreMessage(
                store: "baton", digests: storeMessage.digests, took: [storeMessage.entries[0].version],
                state: StoreState(size: 1_500, digest: Array(repeating: 0x3C, count: 32), port: 47_790, revision: 2)))),
        ]
    }

    /// A STORE with a value, a dictionary that replaced a version, and a kept tombstone.
    static var storeMessage: StoreMessage {
        let writer = SenderID(tag: DeviceTag(FuzzFixtures.device.publicIdentity.deviceID), instance: Array(0xA8...0xAF))!
        let clock = StoreVersion.clock(at: FuzzFixtures.now.addingTimeInterval(-2))
        let entries = [
            StoreEntry(key: "theme", value: .string("dark"), version: StoreVersion(clock: clock, writer: writer)),
            StoreEntry(
                key: "layout", value: .dictionary(["w": .integer(80), "h": .integer(24)]),
                version: StoreVersion(clock: clock + 1, writer: writer), replaces: StoreVersion(clock: clock - 5, writer: writer)),
            StoreEntry(key: "draft", value: nil, version: StoreVersion(clock: clock + 2, writer: writer), kept: true),
        ]
        return StoreMessage(
            store: "baton", digests: StoreDigests(entries: entries.map { ($0.key, $0.version) }), entries: entries)
    }

    /// A device that is not listed, introduced by the shared device in a DEVICES seed.
    static let newcomer = DeviceIdentity(seed: Array(0x40...0x5F))!

    /// The shared device's introduction of `newcomer`.
    static var introduction: Statement {
        Statement(
            .introduce(identity: newcomer.publicIdentity, name: "newcomer"), by: FuzzFixtures.device,
            at: FuzzFixtures.now.addingTimeInterval(-60))
    }

    static func datagramSeeds(shared: [(String, [UInt8])], into folder: URL) throws {
        let codec = FuzzFixtures.codec()
        for (name, message) in messages {
            let plaintext = DatagramCodec.plaintext(message, sentAt: FuzzFixtures.now)
            let datagram = try codec.encode(
                message, identity: FuzzFixtures.device, senderID: FuzzFixtures.sender, sequence: 1, sentAt: FuzzFixtures.now)
            // Every seed is accepted, with the shared device listed.
            _ = try codec.decode(datagram, now: FuzzFixtures.now, identity: FuzzFixtures.listed)
            try write([0] + datagram, "raw-\(name).bin", in: folder)
            try write([1, message.kind.rawValue] + plaintext, "sealed-\(name).bin", in: folder)
            try write([2] + plaintext, "plist-\(name).bin", in: folder)
            try write([3, message.kind.rawValue, 0] + plaintext, "center-\(name).bin", in: folder)
        }
        // A CONTINUED for the fuzz center's own activity, and a QUERY it answers.
        let ownContinued = HandoffMessage.continued(activityID: FuzzFixtures.currentActivityPlaceholder, peer: FuzzFixtures.peer)
        try write([3, DatagramKind.continued.rawValue, 1] + DatagramCodec.plaintext(ownContinued, sentAt: FuzzFixtures.now),
                  "center-continued-own.bin", in: folder)
        try write([3, DatagramKind.query.rawValue, 2] + DatagramCodec.plaintext(.query(types: ["dev.baton.counter"]), sentAt: FuzzFixtures.now),
                  "center-query-counter.bin", in: folder)
        // DEVICES from a device that is not listed: steps 5 and 10 are skipped, and it is accepted.
        let newcomerSender = SenderID(tag: DeviceTag(newcomer.publicIdentity.deviceID), instance: Array(0xA8...0xAF))!
        let unlisted = try codec.encode(
            .devices(statements: [], digest: Statement.setDigest([])), identity: newcomer, senderID: newcomerSender,
            sequence: 1, sentAt: FuzzFixtures.now)
        _ = try codec.decode(unlisted, now: FuzzFixtures.now, identity: FuzzFixtures.listed)
        try write([0] + unlisted, "raw-devices-unlisted.bin", in: folder)
        for (name, bytes) in shared {
            try write([1, DatagramKind.announce.rawValue] + bytes, "sealed-\(name).bin", in: folder)
            try write([2] + bytes, "plist-\(name).bin", in: folder)
        }
    }

    // MARK: Registry

    static func registrySeeds(root: URL, shared: [(String, [UInt8])], into folder: URL) throws {
        let xml = try Data(contentsOf: root.appendingPathComponent("Resources/Registry/ActivityTypes.plist"))
        let object = try PropertyListSerialization.propertyList(from: xml, format: nil)
        let value = try PropertyListValue(foundationObject: object)
        _ = try ActivityTypeRegistry(data: xml)
        try write(Array(xml), "Info.plist", in: folder)
        let ours = BinaryPropertyListWriter().write(value)
        _ = try ActivityTypeRegistry(data: Data(ours))
        try write(ours, "Info-baton-writer.bplist", in: folder)
        let foundations = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        _ = try ActivityTypeRegistry(data: foundations)
        try write(Array(foundations), "Info-foundation-writer.bplist", in: folder)
        let minimal = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>NSUserActivityTypes</key><array><string>dev.baton.counter</string></array>\
            <key>BatonActivitySchemas</key><dict><key>dev.baton.counter</key><dict><key>count</key><string>integer</string>\
            <key>BatonRequiredKeys</key><array><string>count</string></array></dict></dict>\
            <key>Other</key><array><integer>-7</integer><real>2.5</real><true/><false/><date>2025-01-01T00:00:00Z</date>\
            <data>AAECAw==</data><string>&lt;&amp;&#x4E2D;</string><dict/></array></dict></plist>

            """
        _ = try ActivityTypeRegistry(data: Data(minimal.utf8))
        try write(Array(minimal.utf8), "minimal.plist", in: folder)
        let openStep = #"{ NSUserActivityTypes = ("dev.baton.counter", "dev.baton.editing"); BatonActivitySchemas = { "dev.baton.counter" = { count = integer; }; }; }"#
        try write(Array(openStep.utf8), "openstep.plist", in: folder)
        for (name, bytes) in shared { try write(bytes, "\(name).bplist", in: folder) }
    }

    // MARK: Editor

    static func editorSeeds(into folder: URL) throws {
        // Byte 0 sets up (bit 0: counter; bits 1–2: first size); the rest is the script (Fuzz/EditorFuzzer.swift).
        let seeds: [(String, [UInt8])] = [
            ("typing", [0] + Array("hello\nworld\tend".utf8)),
            ("edit-and-move", [0] + Array("abc\ndef\nghi".utf8) + [0x01, 0x01, 0x04, 0x7F, 0x0B, 0x05, 0x06, 0x02, 0x0A, 0x08, 0x07]),
            ("wide-and-combining", [0, 0x12, 0, 0x12, 1, 0x12, 2, 0x12, 4, 0x12, 5, 0x0A, 0x12, 3, 0x01, 0x04, 0x04, 0x02, 0x7F]),
            ("utf8", [0] + Array("中文 👋🏽 é ｱ\n🇫🇷x".utf8) + [0x01, 0x01, 0x03, 0x0B]),
            ("tiny-screen", [2, 0x10, 1, 1] + Array("abc".utf8) + [0x10, 0, 0, 0x0A, 0x10, 2, 1, 0x12, 5, 0x10, 80, 24]),
            ("move-to", [0] + Array("one\ntwo\nthree".utf8) + [0x11, 0xFF, 0x7F, 0x11, 1, 1, 0x11, 0x80, 0x00, 0x7F]),
            ("insert-text", [0, 0x14, 7] + Array("a\r\nb\rc".utf8) + [0x14, 3, 0xE4, 0xB8, 0xAD] + [0x03, 0x03, 0x0A]),
            ("controls", [0] + Array("text".utf8) + [0x00, 18, 0x0C, 0x1B, 0x0E, 5, 0x0F, 200, 0x15, 10, 0x1C, 0x1D]),
            ("save-as", [0] + Array("note".utf8) + [0x17, 0x7F, 0x7F] + Array("x.txt".utf8) + [0x0A, 0x18, 6, 0, 0, 0x79, 0x18, 4, 0, 0]),
            ("save-then-quit", [0] + Array("dirty".utf8) + [0x1A, 0x79, 0x14, 5] + Array("a.txt".utf8) + [0x0A, 0x18, 5, 0, 4] + Array("full".utf8)),
            ("nearby", [0, 0x18, 0x5D, 3, 4] + Array("Bob™".utf8) + [0x19, 0x02, 0x02, 0x01, 0x1B, 0x19, 0x0A]),
            ("continued", [0, 0x18, 11, 0x7F, 12] + Array("peer\ntext中".utf8) + [0x18, 12, 0x80, 0, 0x02, 0x7F]),
            ("counter", [1] + Array("+++--=r".utf8) + [0x01, 0x02, 0x10, 1, 1] + Array("+n".utf8) + [0x1B, 0x15, 100, 0x18, 2, 0, 3] + Array("bob".utf8)),
            ("quit", [1, 0x71]),
            // 0x1F k: the editor keys of issues 23 and 38 (k < 33) and pastes (33: once, 34: 64 times).
            ("undo-search-cut-paste", [0] + Array("abc".utf8) + [0x0A] + Array("def".utf8) + [0x1F, 33, 9] + Array("xy\nz\rq".utf8)
                + [0x01, 0x77, 0x1F, 0, 0x1F, 1, 0x1F, 0, 0x1F, 2] + Array("b".utf8) + [0x1F, 8, 0x1F, 4, 0x1F, 3]
                + Array("zz".utf8) + [0x1F, 9, 0x1F, 5, 0x1F, 5, 0x1F, 6, 0x1F, 6, 0x1F, 7] + Array("2".utf8)
                + [0x1F, 8, 0x1F, 34, 5] + Array("ab\ncd".utf8) + [0x1F, 0, 0x1F, 1]),
            // Issue 38: select with Shift, cut and paste it, replace (y, then a), the toggles, help, a regexp search.
            ("select-replace-toggles", [0] + Array("foo bar foo\nbaz foo".utf8) + [0x1F, 26, 0x1F, 29, 0x1F, 29, 0x1F, 31]
                + [0x1F, 5, 0x1F, 6, 0x1F, 10] + Array("foo".utf8) + [0x1F, 8] + Array("qux".utf8) + [0x1F, 8, 0x1F, 21, 0x1F, 23]
                + [0x1F, 16, 0x1F, 17, 0x1F, 20] + Array("x".utf8) + [0x1F, 2, 0x1F, 14] + Array("q.x".utf8) + [0x1F, 8]
                + [0x1F, 11, 0x1F, 25, 0x1F, 12, 0x1F, 27, 0x1F, 6, 0x1F, 24, 0x1F, 13, 0x1F, 32, 0x7F]),
        ]
        for (name, bytes) in seeds { try write(bytes, "\(name).bin", in: folder) }
    }
}
