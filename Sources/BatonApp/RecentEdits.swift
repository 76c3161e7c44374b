/// What a buffer's last edits changed, line by line, chained by the versions before and after
/// each: what a cache of something worked out line by line from the top (the syntax colours'
/// open regions) needs to keep what still holds.
public struct RecentEdits: Sendable {
    /// One edit: lines `line ..< line + removed` became `line ..< line + inserted`, or, for an
    /// edit that changed lines here and there and kept the count (replacing every match), the
    /// lines in `exactLines`.
    public struct Edit: Sendable, Equatable {
        let before: UInt64
        let after: UInt64
        public let line: Int
        public let removed: Int
        public let inserted: Int
        public let exactLines: Set<Int>?
    }

    /// The newest last; at most `capacity`.
    private var edits: [Edit] = []
    static let capacity = 64

    mutating func record(before: UInt64, after: UInt64, line: Int, removed: Int, inserted: Int, exactLines: Set<Int>? = nil) {
        if edits.count == Self.capacity { edits.removeFirst() }
        edits.append(Edit(before: before, after: after, line: line, removed: removed, inserted: inserted, exactLines: exactLines))
    }

    /// The edits from version `version` to `current`, oldest first: nil when the edits kept do
    /// not reach back to `version` (then anything may have changed); none when nothing did.
    func edits(since version: UInt64, current: UInt64) -> [Edit]? {
        if version == current { return [] }
        var chain: [Edit] = []
        var reached = current
        for edit in edits.reversed() where edit.after == reached {
            chain.append(edit)
            reached = edit.before
            if reached == version { return chain.reversed() }
        }
        return nil
    }

    /// The first line changed from version `version` to `current`: nil when the edits kept
    /// do not reach back to `version`; `Int.max` when nothing changed.
    func firstChangedLine(since version: UInt64, current: UInt64) -> Int? {
        edits(since: version, current: current).map { $0.map { $0.exactLines?.min() ?? $0.line }.min() ?? .max }
    }
}
