#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Handoff
import PropertyList
import HandoffCLI
import HandoffWire

/// What `baton kv` reads and prints (docs/PROTOCOL.md, section 18): the VALUE of `kv set`, a
/// value as `kv get` prints it, the lines of `kv list` and `kv watch`, as text for people and
/// as JSON lines for scripts. Keys, string values and writer names may come from any listed
/// device: a text line shows them through `PeerText.visible`, a JSON line through `jsonText`.
package enum StoreText {
    /// The store `baton` uses unless `--store` names another.
    package static let defaultStore = "baton"

    // MARK: Checking the arguments

    /// Nil when `name` is a store name (1–64 UTF-8 bytes, no `/`, NUL or leading `.`), else why not.
    package static func storeNameProblem(_ name: String) -> String? {
        guard !StoreMessage.isValidName(name) else { return nil }
        let bytes = name.utf8.count
        let why =
            if bytes == 0 { "it is empty" }
            else if bytes > StoreMessage.nameBytes.upperBound { "it is \(bytes) bytes in UTF-8, over 64" }
            else if name.hasPrefix(".") { "it starts with a dot" }
            else { "it holds a / or a NUL" }
        return "--store '\(PeerText.visible(name))' is not a store name: \(why). A store name is 1-64 UTF-8 bytes, "
            + "without / or NUL, not starting with a dot, e.g. --store settings."
    }

    /// Nil when `key` is a key (1–64 UTF-8 bytes), else why not.
    package static func keyProblem(_ key: String) -> String? {
        let bytes = key.utf8.count
        guard !StoreEntry.isValidKey(key) else { return nil }
        return bytes == 0 ? "A key cannot be empty." : "The key is \(bytes) bytes in UTF-8; a key is at most 64."
    }

    /// Nil when `seconds` is a `--wait` of 0–600 seconds, else why not.
    package static func waitProblem(_ seconds: Double) -> String? {
        seconds.isFinite && seconds >= 0 && seconds <= 600 ? nil : "--wait must be between 0 and 600 seconds."
    }

    // MARK: Reading VALUE

    /// The VALUE of `baton kv set KEY VALUE`: with `asString`, the text itself; otherwise JSON,
    /// read as `baton peer announce --user-info` is (`PropertyListValue(json:)`): any JSON value, objects
    /// as dictionaries, whole numbers as integers (`1.0` too), others as reals, `true`/`false` as
    /// booleans; `null` has no property-list form and is refused. A bare word is not JSON: the
    /// error shows the command with `--string` (`key`, and `fromStandardInput` for VALUE `-`,
    /// are only for that hint).
    package static func value(
        from text: String, asString: Bool, key: String = "KEY", fromStandardInput: Bool = false
    ) throws(CommandFailure) -> PropertyListValue {
        if asString { return .string(text) }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.read(Data(text.utf8))
        } catch {
            throw CommandFailure(notJSON(text, key: key, fromStandardInput: fromStandardInput, reason: error.reason))
        }
        guard let value = parsed.plist else {
            throw CommandFailure(
                "VALUE holds a JSON null, which a store cannot hold: leave it out, or remove the key (baton kv rm KEY).")
        }
        return value
    }

    /// The keys and values of `baton kv import`: one JSON object; a null value removes its key.
    package static func importValues(from text: String) throws(CommandFailure) -> [String: PropertyListValue?] {
        let parsed: JSONValue
        do {
            parsed = try JSONValue.read(Data(text.utf8))
        } catch {
            throw CommandFailure("The file is not valid JSON" + (error.reason.map { ": " + $0 } ?? "."))
        }
        guard case .object(let object) = parsed else {
            throw CommandFailure("The file holds JSON, but not an object: give {\"key\": value, …}.")
        }
        var values: [String: PropertyListValue?] = [:]
        for (key, element) in object {
            if let problem = keyProblem(key) { throw CommandFailure("The key \(PeerText.visible(key)): \(problem)") }
            if element == .null {
                values[key] = .some(nil)
                continue
            }
            guard let value = element.plist else {
                throw CommandFailure("The value of \(PeerText.visible(key)) is JSON that a store cannot hold (a null inside it?).")
            }
            values[key] = value
        }
        return values
    }

    /// Why `text` is not JSON, and how to give it as text.
    static func notJSON(_ text: String, key: String, fromStandardInput: Bool = false, reason: String?) -> String {
        let trimmed = text.trimmed()
        guard let first = trimmed.first else {
            return "VALUE is read as JSON, and it is empty. For an empty text, add --string (or give '\"\"')."
        }
        let command = "baton kv set \(shellQuoted(key)) \(fromStandardInput ? "-" : shellQuoted(text)) --string"
        // Meant as JSON: say what is wrong with it.
        if "{[\"-0123456789".contains(first) {
            let detail = reason.map { ": " + ($0.hasSuffix(".") ? String($0.dropLast()) : $0) } ?? ""
            return "VALUE is not valid JSON\(detail). To store it as text, add --string."
        }
        let asJSON = trimmed.count <= 40 && !trimmed.contains(where: { "\"'\\".contains($0) }) ? " (or give '\"\(PeerText.visible(trimmed))\"')" : ""
        return """
            VALUE is read as JSON, and \(PeerText.visible(String(trimmed.prefix(40))))\(trimmed.count > 40 ? "…" : "") is not JSON. \
            For the text, add --string\(asJSON):
              \(PeerText.visible(command.count > 120 ? "baton kv set KEY VALUE --string" : command))
            """
    }

    /// `text` as one shell word: as it is when it needs no quotes, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "._-/:@%+=,".unicodeScalars.contains($0))
        }
        return plain ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// Standard input read to its end, for VALUE `-`: UTF-8 text, as it is (a final newline
    /// included), of at most `limit` bytes.
    package static func readAll(from descriptor: Int32 = STDIN_FILENO, limit: Int = 1_048_576) throws(CommandFailure) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                throw CommandFailure("Cannot read VALUE from standard input: \(String(cString: strerror(errno))).")
            }
            if n == 0 { break }
            bytes += buffer[..<n]
            guard bytes.count <= limit else {
                throw CommandFailure(
                    "Standard input holds over \(limit) bytes; a store holds at most 1,048,576 bytes of keys and values in all.")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure("Standard input is not UTF-8 text; a value is text or JSON.")
        }
        return text
    }

    // MARK: Printing values

    /// A value as `baton kv get` prints it: a string as its text (made visible: a newline shows
    /// as ␊), anything else, or everything with `json`, as one line of JSON.
    package static func text(of value: PropertyListValue, json: Bool = false) -> String {
        if !json, case .string(let text) = value { return PeerText.visible(text) }
        return value.jsonText
    }

    // MARK: kv list

    /// One key of `baton kv list`.
    package struct Row: Equatable, Sendable {
        package var key: String
        package var value: PropertyListValue
        /// What the key counts against the store's limit (`StoreEntry.size`).
        package var size: Int
        /// The writer: its sender id (16 bytes: its device's tag, then the program's instance).
        package var writer: [UInt8]
        /// The writer's name on this machine's list, when it is listed.
        package var writerName: String?
        package var savedAt: Date

        package init(key: String, value: PropertyListValue, size: Int, writer: [UInt8], writerName: String?, savedAt: Date) {
            self.key = key
            self.value = value
            self.size = size
            self.writer = writer
            self.writerName = writerName
            self.savedAt = savedAt
        }

        /// The row of an entry with a value (nil for a tombstone); the writer named from `roster`.
        package init?(_ entry: StoreEntry, roster: DeviceRoster?) {
            guard let value = entry.value else { return nil }
            self.init(
                key: entry.key, value: value, size: entry.size, writer: entry.version.writer,
                writerName: roster?.identity(for: entry.version.writerTag).flatMap { roster?.listed[$0.deviceID.bytes]?.name },
                savedAt: entry.version.date)
        }

        /// The writer's name, or the first 8 hex digits of its fingerprint.
        package var writerLabel: String {
            writerName.map(PeerText.visible) ?? String(hex(writer).prefix(8))
        }
    }

    /// The rows sorted by key (UTF-8 bytes), tombstones left out.
    package static func rows(_ entries: [StoreEntry], roster: DeviceRoster?) -> [Row] {
        entries.compactMap { Row($0, roster: roster) }.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// `baton kv list`: KEY, BYTES, WRITER, SAVED in columns; `age` says how long ago a date is
    /// ("3s ago"). Nil when there is no row.
    package static func list(_ rows: [Row], age: (Date) -> String) -> String? {
        guard !rows.isEmpty else { return nil }
        let table = [["KEY", "BYTES", "WRITER", "SAVED"]]
            + rows.map { [PeerText.visible($0.key), String($0.size), $0.writerLabel, age($0.savedAt)] }
        let widths = (0..<3).map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { cells in
            [
                PlainText.padded(cells[0], to: widths[0]),
                String(repeating: " ", count: widths[1] - cells[1].count) + cells[1],
                PlainText.padded(cells[2], to: widths[2]),
                cells[3],
            ].joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// `baton kv list --json`: one object per key: `key`, `value`, `size`, `writer` (the
    /// writing program's sender id in hex: its device's tag, then its instance), `writerName` when listed, `savedAt` (ISO 8601, UTC).
    package static func listJSON(_ row: Row) -> String {
        var fields: [String: PropertyListValue] = [
            "key": .string(row.key), "value": row.value, "size": .integer(row.size), "writer": .string(hex(row.writer)),
            "savedAt": .date(row.savedAt),
        ]
        if let name = row.writerName { fields["writerName"] = .string(name) }
        return PropertyListValue.dictionary(fields).jsonText
    }

    /// What `kv list` says on standard error about a store not synced with any peer for longer
    /// than a tombstone is kept (docs/PROTOCOL.md, section 18, "Tombstones").
    package static func staleNote(store: String, lastSync: Date?, now: Date) -> String {
        let days = lastSync.map { " for \(Int(now.timeIntervalSince($0) / 86_400)) days" } ?? ""
        return """
            The store '\(PeerText.visible(store))' is stale: it has not synced with a peer\(days), longer than a removal is \
            remembered (30 days). Keys removed meanwhile on other machines may come back from here: remove them \
            again (baton kv rm KEY).
            """
    }

    // MARK: kv watch

    /// One line of `baton kv watch` for one key of a change: `peerChange theme = dark`,
    /// `peerChange theme removed`, `quotaViolation theme: …`; as JSON `{"store", "reason",
    /// "key", "value"}` (`removed: true` in place of a value that is gone). `value` is what the
    /// store holds for the key now.
    /// With `json`, `savedAt` (when the entry was written, by its writer's clock) and `at` (when
    /// it was printed) go in the line too, when given, and `note` (why a conflict is unresolved).
    package static func change(
        store: String, reason: String, key: String, value: PropertyListValue?, json: Bool, savedAt: Date? = nil,
        at: Date? = nil, note: String? = nil
    ) -> String {
        let refused = reason == "quotaViolation"
        if json {
            var fields: [String: PropertyListValue] = ["store": .string(store), "reason": .string(reason), "key": .string(key)]
            if let savedAt, !refused { fields["savedAt"] = .date(savedAt) }
            if let at { fields["at"] = .date(at) }
            if let note { fields["note"] = .string(note) }
            if let value {
                fields["value"] = value
            } else if !refused {
                fields["removed"] = .boolean(true)
            }
            return PropertyListValue.dictionary(fields).jsonText
        }
        let head = PeerText.visible(reason) + " " + PeerText.visible(key)
        if refused { return head + ": a peer's value was refused, over this store's limits" }
        let line = value.map { head + " = " + text(of: $0) } ?? head + " removed"
        return line + (note.map { " (" + PeerText.visible($0) + ")" } ?? "")
    }

    static func hex(_ bytes: [UInt8]) -> String { PlainText.hex(bytes) }
}
