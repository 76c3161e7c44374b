import Foundation

/// A statistics line of `baton peer listen --json` or `baton monitor --json`: what the receiver
/// accepted, ignored as its own, and dropped by reason, since it started.
struct ReceiveCounts: Sendable {
    /// When the test read the line.
    let time: Date
    let accepted: Int
    let own: Int
    let rejectedTotal: Int
    /// By `RejectionReason` raw value: `authenticationFailed`, `tooShort`, …
    let rejected: [String: Int]

    /// Parses a line; nil for anything that is not a statistics line.
    init?(_ line: LabProcess.Line) {
        guard !line.isError, line.text.hasPrefix("{"), line.text.contains("\"statistics\""),
            let object = try? JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any],
            object["event"] as? String == "statistics"
        else { return nil }
        time = line.time
        accepted = (object["accepted"] as? NSNumber)?.intValue ?? 0
        own = (object["own"] as? NSNumber)?.intValue ?? 0
        rejectedTotal = (object["rejectedTotal"] as? NSNumber)?.intValue ?? 0
        rejected = (object["rejected"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
    }

    /// Counts before anything arrived.
    init(time: Date = Date()) {
        self.time = time
        accepted = 0
        own = 0
        rejectedTotal = 0
        rejected = [:]
    }

    /// How many were dropped for `reason` (a `RejectionReason` raw value).
    subscript(reason: String) -> Int { rejected[reason, default: 0] }

    /// How many arrived for `reason` since `earlier`, with `accepted` counting as a reason.
    func delta(_ reason: String, since earlier: ReceiveCounts) -> Int {
        reason == "accepted" ? accepted - earlier.accepted : self[reason] - earlier[reason]
    }

    /// Everything counted (accepted, own and rejected).
    var total: Int { accepted + own + rejectedTotal }
}
