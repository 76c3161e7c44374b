import FoundationEssentials

/// A transient line such as "Continued on bob@desk" or "Saved notes.txt", shown for a few seconds.
public struct Notice: Equatable, Sendable {
    /// What kind of news a notice brings; problems stay longer and stand out.
    public enum Kind: Equatable, Sendable {
        /// Something went as asked.
        case info
        /// Something failed; the text says what and what to do.
        case problem
    }

    /// The words shown.
    public var text: String
    /// Info or problem.
    public var kind: Kind
    /// When it was shown (`AppModel.now` at the time).
    public var shownAt: Date

    /// How long an info notice stays, in seconds.
    public static let infoDuration: TimeInterval = 4
    /// How long a problem notice stays, in seconds.
    public static let problemDuration: TimeInterval = 8

    /// A notice of `text`, shown at `shownAt`.
    public init(_ text: String, kind: Kind = .info, shownAt: Date) {
        self.text = text
        self.kind = kind
        self.shownAt = shownAt
    }

    /// When it stops showing.
    public var expiresAt: Date {
        shownAt.addingTimeInterval(kind == .info ? Self.infoDuration : Self.problemDuration)
    }

    /// Whether it has stopped showing at `date`.
    public func isExpired(at date: Date) -> Bool {
        date >= expiresAt
    }
}
