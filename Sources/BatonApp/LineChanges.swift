/// Which lines of a text changed since a mark, as whole lines: the first lines and the last
/// lines that are still as they were, and between them the lines that replaced what stood
/// there. What a live session sends a follower (docs/PROTOCOL.md, section 19): the lines that
/// changed, however many edits made them, never a backlog of edits.
public struct LineChanges: Equatable, Sendable {
    /// Lines at the mark.
    public private(set) var baseLineCount: Int
    /// Lines now.
    public private(set) var lineCount: Int
    /// Leading lines untouched since the mark (may exceed the counts: nothing was touched).
    private var untouchedPrefix: Int
    /// Trailing lines untouched since the mark, counted from the end.
    private var untouchedSuffix: Int

    /// Nothing changed yet in a text of `lineCount` lines.
    public init(lineCount: Int) {
        baseLineCount = lineCount
        self.lineCount = lineCount
        untouchedPrefix = lineCount
        untouchedSuffix = lineCount
    }

    /// The lines from `line` on, `removed` of them, were replaced by `inserted` lines.
    public mutating func record(line: Int, removed: Int, inserted: Int) {
        untouchedPrefix = min(untouchedPrefix, max(0, line))
        untouchedSuffix = min(untouchedSuffix, max(0, lineCount - (line + removed)))
        lineCount += inserted - removed
    }

    /// These changes, then `next` (which starts where these end).
    public func then(_ next: LineChanges) -> LineChanges {
        var both = self
        both.lineCount = next.lineCount
        both.untouchedPrefix = min(untouchedPrefix, next.untouchedPrefix)
        both.untouchedSuffix = min(untouchedSuffix, next.untouchedSuffix)
        return both
    }

    /// The replaced range: from line `start`, `removed` lines of the text at the mark became
    /// `inserted` lines of the text now.
    public var replaced: (start: Int, removed: Int, inserted: Int) {
        let shorter = min(baseLineCount, lineCount)
        let start = min(untouchedPrefix, shorter)
        let suffix = min(untouchedSuffix, shorter - start)
        return (start, baseLineCount - start - suffix, lineCount - start - suffix)
    }

    /// Whether no line changed.
    public var isEmpty: Bool {
        let range = replaced
        return range.removed == 0 && range.inserted == 0
    }
}
