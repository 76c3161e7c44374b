/// A replace under way: what it looks for and puts in, the match the question is about, and
/// how far it has gone. It goes from where the cursor was to the end of the text, then from
/// the start back to where it began, as nano's does.
public struct ReplaceState: Equatable, Sendable {
    public var query: String
    public var options: SearchOptions
    public var replacement: String
    /// The match the question is about; selected on screen.
    public var match: (start: TextPosition, end: TextPosition)
    /// Where the cursor was when the replace began: after wrapping, matches from here on were seen.
    public var origin: TextPosition
    /// Whether the search went past the end and goes on from the start.
    public var wrapped: Bool
    /// How many matches were replaced so far.
    public var replaced = 0

    public static func == (a: ReplaceState, b: ReplaceState) -> Bool {
        a.query == b.query && a.options == b.options && a.replacement == b.replacement
            && a.match.start == b.match.start && a.match.end == b.match.end && a.origin == b.origin
            && a.wrapped == b.wrapped && a.replaced == b.replaced
    }
}
