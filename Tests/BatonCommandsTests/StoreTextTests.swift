#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Handoff
import BatonCommands
import HandoffCLI
import HandoffWire
import PropertyList
import Testing

/// What `baton kv` reads (VALUE, standard input, the names it is given) and prints (`get`,
/// `list`, `watch`), without a network (docs/PROTOCOL.md, section 18).
@Suite("baton kv: reading values and printing stores")
struct StoreTextTests {
    // MARK: VALUE

    @Test("VALUE is JSON, any value as baton peer announce --user-info reads it; --string takes the text itself")
    func values() throws {
        #expect(try StoreText.value(from: "\"dark\"", asString: false) == .string("dark"))
        #expect(try StoreText.value(from: " 14 ", asString: false) == .integer(14))
        #expect(try StoreText.value(from: "2.5", asString: false) == .real(2.5))
        #expect(try StoreText.value(from: "true", asString: false) == .boolean(true))
        #expect(try StoreText.value(from: "[1, \"a\"]", asString: false) == .array([.integer(1), .string("a")]))
        #expect(try StoreText.value(from: "{\"w\": 80}", asString: false) == .dictionary(["w": .integer(80)]))
        #expect(try StoreText.value(from: "dark", asString: true) == .string("dark"))
        #expect(try StoreText.value(from: "", asString: true) == .string(""))
        #expect(try StoreText.value(from: "{not json\n", asString: true) == .string("{not json\n"))
    }

    @Test("kv import reads one JSON object: values as set reads them, null removes; anything else is refused")
    func importValues() throws {
        let values = try StoreText.importValues(from: #"{"theme": "dark", "size": 14, "old": null, "layout": {"w": 80}}"#)
        #expect(values.count == 4)
        #expect(values["theme"] == .some(.string("dark")) && values["size"] == .some(.integer(14)))
        #expect(values["old"] == .some(nil))
        #expect(values["layout"] == .some(.dictionary(["w": .integer(80)])))
        #expect(throws: CommandFailure.self) { try StoreText.importValues(from: "[1, 2]") }
        #expect(throws: CommandFailure.self) { try StoreText.importValues(from: "{") }
        #expect(throws: CommandFailure.self) { try StoreText.importValues(from: #"{"": 1}"#) }
        #expect(throws: CommandFailure.self) { try StoreText.importValues(from: #"{"a": [null]}"#) }
    }

    @Test("A bare word is not JSON: the error shows the command with --string, quoted for the shell")
    func bareWord() {
        let word = #expect(throws: CommandFailure.self) { try StoreText.value(from: "dark", asString: false, key: "theme") }
        #expect(word?.description == """
            VALUE is read as JSON, and dark is not JSON. For the text, add --string (or give '"dark"'):
              baton kv set theme dark --string
            """)
        let words = #expect(throws: CommandFailure.self) { try StoreText.value(from: "it's late", asString: false, key: "a b") }
        #expect(words?.description.hasSuffix("baton kv set 'a b' 'it'\\''s late' --string") == true)
        #expect(words?.description.contains("or give") == false)  // no JSON form to copy with a ' inside
        let piped = #expect(throws: CommandFailure.self) {
            try StoreText.value(from: "hello\n", asString: false, key: "greeting", fromStandardInput: true)
        }
        #expect(piped?.description.hasSuffix("baton kv set greeting - --string") == true)
    }

    @Test("Broken JSON, empty VALUE and null are refused, each saying why")
    func refused() {
        let broken = #expect(throws: CommandFailure.self) { try StoreText.value(from: "{\"a\": ", asString: false) }
        #expect(broken?.description.hasPrefix("VALUE is not valid JSON") == true)
        #expect(broken?.description.hasSuffix("To store it as text, add --string.") == true)
        let empty = #expect(throws: CommandFailure.self) { try StoreText.value(from: "  ", asString: false) }
        #expect(empty?.description.contains("it is empty") == true)
        for text in ["null", "[1, null]", "{\"a\": {\"b\": null}}"] {
            let null = #expect(throws: CommandFailure.self) { try StoreText.value(from: text, asString: false) }
            #expect(null?.description.contains("null") == true)
        }
    }

    @Test("A word shown in an error cannot act on the terminal")
    func hostileWord() {
        let error = #expect(throws: CommandFailure.self) { try StoreText.value(from: "a\u{1B}[2Jb", asString: false) }
        #expect(error?.description.contains("\u{1B}") == false)
        #expect(error?.description.contains("␛") == true)
    }

    /// A pipe holding `bytes`, its write end closed; the caller closes the read end.
    func pipe(holding bytes: [UInt8]) throws -> Int32 {
        var fds: [Int32] = [0, 0]
        try #require(Glibc.pipe(&fds) == 0)
        let written = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        close(fds[1])
        return fds[0]
    }

    @Test("VALUE - reads standard input to its end, as it is; not UTF-8 or over the limit is refused")
    func standardInput() throws {
        let text = try pipe(holding: Array("line 1\nline 2\n".utf8))
        defer { close(text) }
        #expect(try StoreText.readAll(from: text) == "line 1\nline 2\n")

        let binary = try pipe(holding: [0x61, 0xFF, 0xFE])
        defer { close(binary) }
        let notText = #expect(throws: CommandFailure.self) { try StoreText.readAll(from: binary) }
        #expect(notText?.description == "Standard input is not UTF-8 text; a value is text or JSON.")

        let long = try pipe(holding: Array(repeating: UInt8(ascii: "x"), count: 100))
        defer { close(long) }
        let tooLong = #expect(throws: CommandFailure.self) { try StoreText.readAll(from: long, limit: 50) }
        #expect(tooLong?.description.hasPrefix("Standard input holds over 50 bytes") == true)
    }

    // MARK: Names

    @Test("Store names, keys and waits are checked, each error saying what a good one is")
    func names() {
        #expect(StoreText.storeNameProblem("baton") == nil)
        #expect(StoreText.storeNameProblem("réglages") == nil)
        #expect(StoreText.storeNameProblem("")?.contains("it is empty") == true)
        #expect(StoreText.storeNameProblem(".hidden")?.contains("starts with a dot") == true)
        #expect(StoreText.storeNameProblem("a/b")?.contains("a / or a NUL") == true)
        #expect(StoreText.storeNameProblem(String(repeating: "é", count: 33))?.contains("66 bytes") == true)
        #expect(StoreText.storeNameProblem("x\u{1B}") == nil)  // valid, shown visibly where printed
        #expect(StoreText.storeNameProblem("\u{1B}/")?.contains("\u{1B}") == false)

        #expect(StoreText.keyProblem("theme") == nil)
        #expect(StoreText.keyProblem(String(repeating: "k", count: 64)) == nil)
        #expect(StoreText.keyProblem("") == "A key cannot be empty.")
        #expect(StoreText.keyProblem(String(repeating: "k", count: 65)) == "The key is 65 bytes in UTF-8; a key is at most 64.")

        #expect(StoreText.waitProblem(0) == nil)
        #expect(StoreText.waitProblem(600) == nil)
        for bad in [-1, 601, .nan, .infinity] { #expect(StoreText.waitProblem(bad) != nil) }
    }

    // MARK: get

    @Test("get prints a string as its text, made visible, and anything else, or everything with --json, as JSON")
    func getText() {
        #expect(StoreText.text(of: .string("dark")) == "dark")
        #expect(StoreText.text(of: .string("a\nb\u{1B}[31m")) == "a␊b␛[31m")
        #expect(StoreText.text(of: .string("a\nb"), json: true) == "\"a\\nb\"")
        #expect(StoreText.text(of: .integer(14)) == "14")
        #expect(StoreText.text(of: .dictionary(["w": .integer(80), "a": .boolean(true)])) == "{\"a\":true,\"w\":80}")
        #expect(StoreText.text(of: .string("\u{202E}x"), json: true) == "\"\\u202Ex\"")
    }

    // MARK: list

    let alice = DeviceIdentity.random().publicIdentity
    let stranger = DeviceIdentity.random().publicIdentity
    let saved = Date(timeIntervalSince1970: 1_780_000_000)

    func entry(_ key: String, _ value: PropertyListValue?, by writer: PublicIdentity, at date: Date? = nil) -> StoreEntry {
        StoreEntry(key: key, value: value, version: StoreVersion(clock: StoreVersion.clock(at: date ?? saved), writer: SenderID.random(device: writer.deviceID)))
    }

    @Test("list: keys sorted, tombstones left out, the writer by its listed name or the start of its fingerprint")
    func listText() {
        let roster = DeviceRoster(own: alice, name: "alice@laptop")
        let rows = StoreText.rows(
            [
                entry("theme", .string("dark"), by: alice), entry("gone", nil, by: alice),
                entry("font-size", .integer(14), by: stranger), entry("e\u{1B}vil", .boolean(true), by: alice),
            ],
            roster: roster)
        #expect(rows.map(\.key) == ["e\u{1B}vil", "font-size", "theme"])
        #expect(rows[1].writerName == nil)
        #expect(rows[1].writerLabel == String(stranger.deviceID.hex.prefix(8)))
        #expect(rows[2].writerName == "alice@laptop")
        #expect(rows[2].size == entry("theme", .string("dark"), by: alice).size)
        let text = StoreText.list(rows, age: { _ in "3s ago" })
        #expect(text == """
            KEY        BYTES  WRITER        SAVED
            e␛vil         \(rows[0].size)  alice@laptop  3s ago
            font-size     \(rows[1].size)  \(rows[1].writerLabel.padding(toLength: 12, withPad: " ", startingAt: 0))  3s ago
            theme         \(rows[2].size)  alice@laptop  3s ago
            """)
        #expect(StoreText.list([], age: { _ in "" }) == nil)
    }

    @Test("list --json: key, value, size, writer in hex, writerName when listed, savedAt in ISO 8601")
    func listJSON() throws {
        let roster = DeviceRoster(own: alice, name: "alice@laptop")
        let rows = StoreText.rows([entry("theme", .string("dark"), by: alice), entry("n", .integer(1), by: stranger)], roster: roster)
        let named = try JSONSerialization.jsonObject(with: Data(StoreText.listJSON(rows[1]).utf8)) as? [String: Any]
        #expect(named?["key"] as? String == "theme")
        #expect(named?["value"] as? String == "dark")
        #expect(named?["size"] as? Int == rows[1].size)
        #expect((named?["writer"] as? String)?.hasPrefix(String(alice.deviceID.hex.prefix(16))) == true)
        #expect((named?["writer"] as? String)?.count == 32)
        #expect(named?["writerName"] as? String == "alice@laptop")
        #expect(named?["savedAt"] as? String == "2026-05-28T20:26:40.000Z")
        let unnamed = try JSONSerialization.jsonObject(with: Data(StoreText.listJSON(rows[0]).utf8)) as? [String: Any]
        #expect(unnamed?["writerName"] == nil)
        #expect(!StoreText.listJSON(rows[0]).contains("\n"))
    }

    @Test("A stale store says how long it was away and what to do")
    func stale() {
        let note = StoreText.staleNote(store: "baton", lastSync: saved, now: saved.addingTimeInterval(40 * 86_400))
        #expect(note.contains("for 40 days"))
        #expect(note.contains("baton kv rm KEY"))
    }

    // MARK: watch

    @Test("watch: one line per key, as text or JSON")
    func watchLines() throws {
        #expect(StoreText.change(store: "baton", reason: "peerChange", key: "theme", value: .string("dark"), json: false)
            == "peerChange theme = dark")
        #expect(StoreText.change(store: "baton", reason: "initialSync", key: "n", value: .integer(3), json: false)
            == "initialSync n = 3")
        #expect(StoreText.change(store: "baton", reason: "peerChange", key: "theme", value: nil, json: false)
            == "peerChange theme removed")
        #expect(StoreText.change(store: "baton", reason: "quotaViolation", key: "logo", value: nil, json: false)
            == "quotaViolation logo: a peer's value was refused, over this store's limits")
        #expect(StoreText.change(store: "baton", reason: "peerChange", key: "k\u{1B}", value: .string("\u{9B}2J"), json: false)
            == "peerChange k␛ = <U+009B>2J")

        #expect(StoreText.change(store: "baton", reason: "peerChange", key: "theme", value: .string("dark"), json: true)
            == #"{"key":"theme","reason":"peerChange","store":"baton","value":"dark"}"#)
        #expect(StoreText.change(store: "s", reason: "conflict", key: "theme", value: nil, json: true)
            == #"{"key":"theme","reason":"conflict","removed":true,"store":"s"}"#)
        #expect(StoreText.change(store: "s", reason: "quotaViolation", key: "logo", value: nil, json: true)
            == #"{"key":"logo","reason":"quotaViolation","store":"s"}"#)
    }
}
