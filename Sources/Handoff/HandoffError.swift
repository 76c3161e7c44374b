import FoundationEssentials
import PropertyList
import HandoffWire

/// Why an activity could not be published or continued.
///
/// Every case carries what a person needs to fix the problem, and `description`
/// says it in one sentence. Many cases carry text a peer chose (its activity type, required
/// keys, name, a refusal's message); the case keeps it as it came, and `description` shows it
/// through `PeerText.visible`, so the sentence carries no control, bidi or invisible scalar.
public enum HandoffError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The activity type is not reverse-DNS (`dev.baton.counter`).
    case invalidActivityType(String)
    /// The type is not in this program's `NSUserActivityTypes`.
    case undeclaredType(type: String, declared: [String])
    /// A userInfo value has another plist type than the type's schema declares.
    case schemaViolation(type: String, key: String, expected: PropertyListType, actual: PropertyListType)
    /// Keys the activity or its schema requires are absent from userInfo.
    case missingRequiredKeys(type: String, keys: [String])
    /// The encoded record is larger than a datagram may carry.
    case payloadTooLarge(bytes: Int, limit: Int)
    /// The encoded record is larger than the state limit (34 MiB by default: 16 MiB of text).
    case stateTooLarge(bytes: Int, limit: Int)
    /// Even without its userInfo, the OFFER describing the record does not fit one datagram.
    case descriptionTooLarge(bytes: Int, limit: Int)
    /// Fetching a large record from its source failed; nothing was restored.
    case transferFailed(peer: String, reason: String)
    /// The continue was cancelled before anything was restored.
    case cancelled
    /// `webpageURL` must be http or https.
    case invalidWebpageURL(String)
    /// The activity's `expirationDate` has passed.
    case expired(type: String, at: Date)
    /// The activity was invalidated and cannot become current again.
    case invalidated(type: String)
    /// Nothing continuable was heard in time.
    case notFound(type: String?, peer: String?, waited: Duration, endpoint: String)
    /// The application delegate declined to continue the activity.
    case declined(type: String)
    /// A continuation stream to or from `peer` could not be opened, or failed.
    case continuationStream(peer: String, ContinuationStreamFailure)

    public var description: String { PeerText.visible(sentence) }

    /// The sentence, with the cases' text as it came.
    private var sentence: String {
        switch self {
        case .invalidActivityType(let type):
            return "'\(type)' is not a valid activity type: use reverse-DNS, such as dev.baton.counter."
        case .undeclaredType(let type, let declared):
            let list = declared.isEmpty ? "none" : declared.joined(separator: ", ")
            return "Activity type '\(type)' is not declared in NSUserActivityTypes (declared: \(list)); add it to the registry to use it."
        case .schemaViolation(let type, let key, let expected, let actual):
            return "userInfo key '\(key)' of \(type) must be \(Self.article(expected)) \(expected), but it is \(Self.article(actual)) \(actual)."
        case .missingRequiredKeys(let type, let keys):
            return "\(type) is missing required userInfo \(keys.count == 1 ? "key" : "keys") \(keys.map { "'\($0)'" }.joined(separator: ", "))."
        case .payloadTooLarge(let bytes, let limit):
            return "The activity record is \(bytes) bytes encoded, over the \(limit)-byte limit of one datagram; make its userInfo smaller."
        case .stateTooLarge(let bytes, let limit):
            return "The activity record is \(Self.size(bytes)) encoded; Baton hands off records up to \(Self.size(limit))."
        case .descriptionTooLarge(let bytes, let limit):
            return "The activity's description is \(bytes) bytes without its userInfo, over the \(limit)-byte datagram limit; shorten its title or keywords."
        case .transferFailed(let peer, let reason):
            // A reason that is a sentence of its own (a `StreamFailure`'s) already ends with its period.
            let ended = reason.hasSuffix(".") ? reason : reason + "."
            return "Could not fetch the activity from \(peer): \(ended) Nothing was restored."
        case .cancelled:
            return "The continue was cancelled; nothing was restored."
        case .invalidWebpageURL(let url):
            return "webpageURL '\(url)' is not allowed: only http and https URLs can be continued in a browser."
        case .expired(let type, let at):
            return "The \(type) activity expired at \(at.formatted(Date.ISO8601FormatStyle())) and can no longer be continued."
        case .invalidated(let type):
            return "The \(type) activity was invalidated; create a new activity instead."
        case .notFound(let type, let peer, let waited, let endpoint):
            let what = type.map { "\($0) activity" } ?? "activity"
            let from = peer.map { " from \($0)" } ?? ""
            return "No continuable \(what)\(from) was heard on \(endpoint) within \(Self.seconds(waited))."
        case .declined(let type):
            return "The application declined to continue the \(type) activity."
        case .continuationStream(let peer, let failure):
            return "No continuation stream with \(peer): \(failure)."
        }
    }

    static func article(_ type: PropertyListType) -> String {
        type == .integer || type == .array ? "an" : "a"
    }

    /// `512 bytes`, `40 KB`, `1.5 MB`, `16 MB` (powers of 1,024, as people read file sizes).
    public static func size(_ bytes: Int) -> String { ByteSize.text(bytes) }

    static func seconds(_ duration: Duration) -> String {
        let (s, atto) = duration.components
        let value = Double(s) + Double(atto) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : PlainText.oneDecimal(value) + " s"
    }
}
