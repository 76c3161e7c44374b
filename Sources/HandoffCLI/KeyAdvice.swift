import BatonFiles
import FoundationEssentials
import Handoff
import HandoffWire
import PropertyList

/// What to tell a person whose machines do not share a group key: datagrams under another key
/// were heard (`ActivityCenter.Event.otherKeyHeard`, `ActivityCenter.otherKeySources`), or this
/// machine's key was made just now and no one else has it. Shared by `baton monitor`,
/// `baton --continue-activity` and `baton peer`.
public enum KeyAdvice {
    /// How a machine gets into the group: pairing gives it the key and lists it on both sides.
    /// The key alone lets no machine in (a machine hears only the devices it lists).
    public static let share = "pair the two machines (`baton pair` on one, `baton pair --join` on the other): "
        + "a machine hears only the machines it is paired with or introduced to, and pairing gives it the group's key too"

    /// What `baton key --import` says once the key is stored at `path`. `listedOthers` is how many
    /// other devices this machine's list holds: with none, baton here hears no one until it is paired.
    public static func imported(path: String, listedOthers: Int) -> String {
        let first = "Imported. \(PeerText.visible(path)) now holds the shared key."
        if listedOthers == 0 {
            return first + " The key alone lets no machine in, and no device is listed here yet: "
                + "baton here hears no one until this machine is paired with a machine of the group "
                + "(`baton pair` there, `baton pair --join` here)."
        }
        let devices = listedOthers == 1 ? "the 1 other device" : "the \(listedOthers) other devices"
        return first + " Baton here hears \(devices) `baton devices` lists, once they use this key; "
            + "the key alone lets no other machine in: a machine gets in by pairing "
            + "(`baton pair` on a machine of the group, `baton pair --join` on it)."
    }

    /// "10.77.0.12", "10.77.0.12 and 10.77.0.13", "10.77.0.12, 10.77.0.13 and 10.77.0.14",
    /// each address made visible (a relay's name is peer text).
    static func list(_ sources: [String]) -> String {
        let shown = sources.map { PeerText.visible($0) }
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }

    /// What to do about datagrams heard under another key.
    public enum OtherKeyRemedy: Equatable, Sendable {
        /// Pair the machines: pairing gives the key and lists each on the other.
        case pair
        /// `BATON_KEY` is set and takes the place of the key file: that key may not be the group's.
        case environmentKey
    }

    /// The remedy for datagrams under another key, given where this machine's key came from.
    public static func otherKeyRemedy(keySource: GroupKey.Source) -> OtherKeyRemedy {
        if case .environment = keySource { .environmentKey } else { .pair }
    }

    /// What to do about `BATON_KEY` when datagrams under another key are heard.
    public static let environmentKey = "BATON_KEY is set here and takes the place of the key file, so this machine "
        + "uses the key BATON_KEY holds: unset it (unset BATON_KEY) to use the key file, "
        + "or set it to what `baton key` prints on a machine of the group"

    /// The remedy's words.
    public static func text(_ remedy: OtherKeyRemedy) -> String {
        switch remedy {
        case .pair: share
        case .environmentKey: environmentKey
        }
    }

    /// The sentence for datagrams heard under another key from `sources`.
    public static func otherKey(_ sources: [String], remedy: OtherKeyRemedy = .pair) -> String {
        "Datagrams under another group key came from \(list(sources)): a machine there holds a key this one does not; \(text(remedy))."
    }

    /// The sentence for a key made by this run.
    public static func newKey(path: String) -> String {
        "This machine had no group key, so a new one was made (\(PeerText.visible(path))), and no other machine shares it yet: "
            + "pair it with a machine of the group (`baton pair` there, `baton pair --join` here): "
            + "pairing gives it the group's key and lists it on both sides."
    }

    /// The message of a continue that failed: `error`'s sentence, and when nothing was found,
    /// what the key explains of it — datagrams under another key from `otherKeySources`, or a
    /// key `keySource` says was made just now.
    public static func continueFailed(
        _ error: HandoffError, otherKeySources: [String], keySource: GroupKey.Source
    ) -> String {
        guard case .notFound = error else { return error.description }
        var sentences = [error.description]
        if !otherKeySources.isEmpty {
            sentences.append(otherKey(otherKeySources, remedy: otherKeyRemedy(keySource: keySource)))
        }
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
