import BatonFiles
import Foundation
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

    /// `baton devices`: NAME, FINGERPRINT, PAIRED, LAST HEARD in columns; times in `timeZone`.
    public static func list(_ entries: [DeviceEntry], timeZone: TimeZone = .current) -> String {
        guard !entries.isEmpty else { return noDevices }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let rows = [["NAME", "FINGERPRINT", "PAIRED", "LAST HEARD"]] + entries.map { entry in
            [
                PeerText.visible(entry.name), entry.fingerprint, formatter.string(from: entry.paired),
                entry.lastHeard.map { formatter.string(from: $0) } ?? "-",
            ]
        }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                + "  " + row[3]
        }.joined(separator: "\n")
    }

    /// `baton devices --json`: one array of entries (times in ISO 8601, UTC).
    public static func listJSON(_ entries: [DeviceEntry]) -> String {
        entries.isEmpty ? "[]" : json(entries)
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
