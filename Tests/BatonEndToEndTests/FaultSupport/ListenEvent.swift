import Foundation

/// One `appeared`, `changed` or `gone` line of `baton peer listen --json` or `baton monitor --json`,
/// with the time the test read it.
struct ListenEvent {
    /// When the test read the line.
    let time: Date
    let fields: [String: Any]

    /// Parses a line; nil for statistics lines and anything that is not such an event.
    init?(_ line: LabProcess.Line) {
        guard !line.isError, line.text.hasPrefix("{"),
            let object = try? JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any],
            let event = object["event"] as? String, ["appeared", "changed", "gone"].contains(event)
        else { return nil }
        time = line.time
        fields = object
    }

    var event: String { fields["event"] as? String ?? "" }
    var type: String { fields["type"] as? String ?? "" }
    var activityID: String { fields["activityID"] as? String ?? "" }
    var revision: Int { (fields["revision"] as? NSNumber)?.intValue ?? -1 }
    /// The first 8 bytes of the sender id, in hex.
    var sender: String { fields["sender"] as? String ?? "" }
    var title: String? { fields["title"] as? String }
    var peerName: String { (fields["peer"] as? [String: Any])?["name"] as? String ?? "" }
    var userInfo: [String: Any] { fields["userInfo"] as? [String: Any] ?? [:] }

    /// An integer of `userInfo`.
    func int(_ key: String) -> Int? { (userInfo[key] as? NSNumber)?.intValue }
}
