/// The first line each of a buffer's last edits touched, chained by the versions before and
/// after it: what a cache of something computed line by line from the top (the syntax
/// colours' open regions) needs to know to keep the lines before the first change.
public struct RecentEdits: Sendable {
    private struct Edit: Sendable {
        let before: UInt64
        let after: UInt64
        let line: Int
    }

    /// The newest last; at most `capacity`.
    private var edits: [Edit] = []
    static let capacity = 64

    mutating func record(before: UInt64, after: UInt64, line: Int) {
        if edits.count == Self.capacity { edits.removeFirst() }
        edits.append(Edit(before: before, after: after, line: line))
    }

    /// The first line changed from version `version` to `current`: nil when the edits kept
    /// do not reach back to `version` (then anything may have changed); `Int.max` when nothing did.
    func firstChangedLine(since version: UInt64, current: UInt64) -> Int? {
        if version == current { return .max }
        var line = Int.max
        var reached = current
        for edit in edits.reversed() where edit.after == reached {
            line = min(line, edit.line)
            reached = edit.before
            if reached == version { return line }
        }
        return nil
    }
}
