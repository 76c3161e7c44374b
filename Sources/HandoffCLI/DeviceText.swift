import BatonFiles
import FoundationEssentials
import HandoffWire

/// What `baton id` and `baton devices` print, as text for people and as JSON.
public enum DeviceText {
    /// `baton id`: this machine's name and fingerprint, and where its identity is kept.
    public static func identity(name: String, identity: PublicIdentity, path: String, created: Bool) -> String {
        var lines = [
            "This machine: \(PeerText.visible(name))",
            "Fingerprint:  \(identity.deviceID.fingerprint)",
            "Identity:     \(path)",
            "",
            "A machine paired with this one lists it under this fingerprint in `baton devices`; the same",
            "fingerprint beside the code in `baton pair` is this machine. Compare them to know it is this one.",
        ]
        if created { lines.insert("This machine had no identity yet: one was made in \(path).", at: 0) }
        return lines.joined(separator: "\n")
    }

    /// `baton id --json`: one object.
    public static func identityJSON(name: String, identity: PublicIdentity, path: String, created: Bool) -> String {
        json(IdentityObject(
            name: name, fingerprint: identity.deviceID.fingerprint, deviceID: identity.deviceID.hex,
            identity: identity.base64, file: path, created: created))
    }

    /// What `baton devices` says when the list is empty.
    public static let noDevices = """
        No paired devices yet. To pair this machine with another, run `baton pair` on the machine that \
        has the group key and `baton pair --join` on the other; each then lists the other here. \
        `baton id` shows this machine's fingerprint.
        """

    /// One line of `baton devices`: a device paired with, or introduced by a listed device
    /// (section 17), or removed. As JSON: `name`, `fingerprint`, `deviceID`, `identity`, `via`
    /// (`paired` or `introduced`), `paired` or `introduced` (when), `introducedBy` (a name),
    /// `removed`, `lastHeard`.
    public struct Row: Encodable, Equatable, Sendable {
        public var name, fingerprint, deviceID, identity, via: String
        public var introducedBy: String?
        public var paired: Date?
        public var introduced: Date?
        public var removed: Bool
        public var lastHeard: Date?

        init(entry: DeviceEntry, removed: Bool) {
            name = entry.name
            fingerprint = entry.fingerprint
            deviceID = entry.deviceID
            identity = entry.identity
            via = entry.via
            paired = entry.paired
            self.removed = removed
            lastHeard = entry.lastHeard
        }

        init(introduced device: PublicIdentity, name: String, by: String, at: Date, removed: Bool) {
            self.name = name
            fingerprint = device.deviceID.fingerprint
            deviceID = device.deviceID.hex
            identity = device.base64
            via = "introduced"
            introducedBy = by
            introduced = at
            self.removed = removed
        }

        /// `paired`, `introduced by NAME`, and `, removed` after either.
        var how: String {
            (via == "introduced" ? "introduced by \(PeerText.visible(introducedBy ?? "?"))" : via) + (removed ? ", removed" : "")
        }
    }

    /// The rows for a device list: the paired entries in the order first added, then the devices
    /// introduced (the first introduction of each, in the order taken), removed ones marked.
    public static func rows(_ snapshot: DeviceList.Snapshot, roster: DeviceRoster) -> [Row] {
        let own = roster.own.deviceID.hex
        var names: [[UInt8]: String] = [:]
        for device in roster.listed.values { names[device.deviceID] = device.name }
        for entry in snapshot.devices { if let id = entry.publicIdentity?.deviceID.bytes { names[id] = names[id] ?? entry.name } }
        var rows = snapshot.devices.filter { $0.deviceID != own }.map { entry in
            Row(entry: entry, removed: entry.publicIdentity.map { roster.removed.contains($0.deviceID.bytes) } ?? false)
        }
        var seen = Set(rows.map(\.deviceID) + [own])
        for statement in roster.statements {
            guard case .introduce(let device, let name) = statement.content, seen.insert(device.deviceID.hex).inserted
            else { continue }
            let listed = roster.listed[device.deviceID.bytes]
            rows.append(Row(
                introduced: device, name: listed?.name ?? name,
                by: names[statement.by] ?? DeviceMatch.fingerprint(statement.by), at: statement.at,
                removed: roster.removed.contains(device.deviceID.bytes)))
        }
        return rows
    }

    /// `baton devices`: NAME, FINGERPRINT, HOW, SINCE in columns, times in `timeZone`; LAST HEARD
    /// after them only when some row has that time. No Baton program keeps it yet (a running one
    /// would have to rewrite devices.json for every datagram heard), so the column is hidden
    /// rather than shown as a column of "-".
    public static func list(_ rows: [Row], utc: Bool = false) -> String {
        guard !rows.isEmpty else { return noDevices }
        let time = { (date: Date) in PlainText.time(date, format: "%Y-%m-%d %H:%M", utc: utc) }
        let showsLastHeard = rows.contains { $0.lastHeard != nil }
        let header = ["NAME", "FINGERPRINT", "HOW", "SINCE"] + (showsLastHeard ? ["LAST HEARD"] : [])
        let table = [header] + rows.map { row in
            [
                PeerText.visible(row.name), row.fingerprint, row.how,
                (row.paired ?? row.introduced).map(time) ?? "-",
            ] + (showsLastHeard ? [row.lastHeard.map(time) ?? "-"] : [])
        }
        let padded = header.count - 1
        let widths = (0..<padded).map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            ((0..<padded).map { PlainText.padded(row[$0], to: widths[$0]) } + [row[padded]])
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// `baton devices` for paired entries alone.
    public static func list(_ entries: [DeviceEntry], utc: Bool = false) -> String {
        list(entries.map { Row(entry: $0, removed: false) }, utc: utc)
    }

    /// `baton devices --json`: one array of rows (times in ISO 8601, UTC).
    public static func listJSON(_ rows: [Row]) -> String {
        rows.isEmpty ? "[]" : json(rows)
    }

    /// `baton devices --json` for paired entries alone.
    public static func listJSON(_ entries: [DeviceEntry]) -> String {
        listJSON(entries.map { Row(entry: $0, removed: false) })
    }

    struct IdentityObject: Encodable {
        var name, fingerprint, deviceID, identity, file: String
        var created: Bool
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }
}
