import BatonFiles
import Foundation
import Handoff
import HandoffWire
import PropertyList

/// What to tell a person whose machines do not share a group key: datagrams under another key
/// were heard (`ActivityCenter.Event.otherKeyHeard`, `ActivityCenter.otherKeySources`), or this
/// machine's key was made just now and no one else has it. Shared by `baton monitor`,
/// `baton --continue-activity` and `baton-peer`.
public enum KeyAdvice {
    /// How two machines come to share one key.
    public static let share = "pair the two machines (`baton pair` on one, `baton pair --join` on the other), "
        + "or give both the same key (`baton key` prints it, `baton key --import -` or BATON_KEY takes it)"

    /// "10.77.0.12", "10.77.0.12 and 10.77.0.13", "10.77.0.12, 10.77.0.13 and 10.77.0.14",
    /// each address made visible (a relay's name is peer text).
    static func list(_ sources: [String]) -> String {
        let shown = sources.map { PeerText.visible($0) }
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }

    /// The sentence for datagrams heard under another key from `sources`.
    public static func otherKey(_ sources: [String]) -> String {
        "Datagrams under another group key came from \(list(sources)): a machine there holds a key this one does not; \(share)."
    }

    /// The sentence for a key made by this run.
    public static func newKey(path: String) -> String {
        "This machine had no group key, so a new one was made (\(PeerText.visible(path))), and no other machine shares it yet: "
            + "pair it with a machine of the group (`baton pair` there, `baton pair --join` here), "
            + "or import that machine's key (`baton key` there, `baton key --import -` here)."
    }

    /// The message of a continue that failed: `error`'s sentence, and when nothing was found,
    /// what the key explains of it — datagrams under another key from `otherKeySources`, or a
    /// key `keySource` says was made just now.
    public static func continueFailed(
        _ error: HandoffError, otherKeySources: [String], keySource: GroupKey.Source
    ) -> String {
        guard case .notFound = error else { return error.description }
        var sentences = [error.description]
        if !otherKeySources.isEmpty { sentences.append(otherKey(otherKeySources)) }
        if case .created(let path) = keySource { sentences.append(newKey(path: path)) }
        return sentences.joined(separator: " ")
    }

    /// `baton monitor`'s line for addresses heard under another key for the first time: the
    /// first one says what to do, later ones only which addresses; in JSON an object with
    /// `"event": "otherKey"`, the new `sources`, every address heard so far as `allSources`, and
    /// the `hint`.
    /// What a monitor prints when machines that speak protocol 1 or 2 were first heard.
    public static func oldProtocolLine(_ sources: [String], format: NearbyMonitor.Format, at time: Date) -> String {
        let visible = sources.map(PeerText.visible)
        let hint = "install this Baton's version there, then pair it once (`baton pair`)"
        switch format {
        case .text:
            return "# " + visible.map { "\($0) speaks protocol 2: update it" }.joined(separator: "; ") + " (\(hint))"
        case .json:
            let line: PropertyListValue = .dictionary([
                "event": "oldProtocol", "time": .date(time), "sources": .array(visible.map { .string($0) }),
                "hint": .string(hint),
            ])
            return line.jsonText
        }
    }

    public static func monitorLine(
        new sources: [String], all: [String], first: Bool, format: NearbyMonitor.Format, at time: Date
    ) -> String {
        switch format {
        case .text:
            let heard = "# another group key: datagrams from \(list(sources))"
            return first ? heard + " do not open with this machine's key; " + share : heard + " too"
        case .json:
            let line: PropertyListValue = .dictionary([
                "event": "otherKey", "time": .date(time),
                "sources": .array(sources.map { .string($0) }), "allSources": .array(all.map { .string($0) }),
                "hint": .string(share),
            ])
            return line.jsonText
        }
    }
}
