import PropertyList

/// The undo history as `dev.baton.editing`'s optional `undoHistory` userInfo key
/// (docs/PROTOCOL.md, section 11).
extension EditHistory {
    /// At most this many steps travel with the activity.
    public static let maxSentSteps = 100
    /// At most this many bytes of the steps' strings travel with the activity.
    public static let maxSentBytes = 256 << 10

    /// The newest steps that fit the limits, oldest first; nil when there are none.
    public var userInfoValue: PropertyListValue? {
        var kept: [PropertyListValue] = []
        var bytes = 0
        for step in steps.reversed() {
            let size = (step.removed + step.inserted).reduce(0) { $0 + $1.utf8.count }
            guard kept.count < Self.maxSentSteps, bytes + size <= Self.maxSentBytes else { break }
            bytes += size
            kept.append(.dictionary([
                "line": .integer(step.line),
                "removed": .array(step.removed.map { .string($0) }),
                "inserted": .array(step.inserted.map { .string($0) }),
                "cursorBeforeLine": .integer(step.cursorBefore.line),
                "cursorBeforeColumn": .integer(step.cursorBefore.column),
                "cursorAfterLine": .integer(step.cursorAfter.line),
                "cursorAfterColumn": .integer(step.cursorAfter.column),
            ]))
        }
        return kept.isEmpty ? nil : .array(kept.reversed())
    }

    /// The history a peer sent with `buffer`'s text, or an empty one when it is malformed,
    /// over the limits, or does not undo within that text exactly (each step, from the
    /// newest, must find its inserted lines there).
    public static func received(_ value: PropertyListValue?, for buffer: TextBuffer) -> EditHistory {
        guard let value, let steps = steps(from: value) else { return EditHistory() }
        var scratch = buffer
        for step in steps.reversed() {
            guard step.line >= 0, step.line <= scratch.lineCount - step.inserted.count,
                  scratch.lineStrings(step.line...(step.line + step.inserted.count - 1)) == step.inserted
            else { return EditHistory() }
            scratch.undo(step)
            // Whole lines never join with their neighbours, but check what the undo left.
            guard step.line + step.removed.count <= scratch.lineCount,
                  scratch.lineStrings(step.line...(step.line + step.removed.count - 1)) == step.removed
            else { return EditHistory() }
        }
        return EditHistory(undoSteps: steps)
    }

    private static func steps(from value: PropertyListValue) -> [EditStep]? {
        guard let array = value.arrayValue, array.count <= maxSentSteps else { return nil }
        var bytes = 0
        var steps: [EditStep] = []
        for element in array {
            guard let entry = element.dictionaryValue,
                  let line = entry["line"]?.intValue,
                  let removed = lines(entry["removed"]), let inserted = lines(entry["inserted"]),
                  let beforeLine = entry["cursorBeforeLine"]?.intValue,
                  let beforeColumn = entry["cursorBeforeColumn"]?.intValue,
                  let afterLine = entry["cursorAfterLine"]?.intValue,
                  let afterColumn = entry["cursorAfterColumn"]?.intValue
            else { return nil }
            bytes += (removed + inserted).reduce(0) { $0 + $1.utf8.count }
            guard bytes <= maxSentBytes else { return nil }
            steps.append(EditStep(
                line: line, removed: removed, inserted: inserted,
                cursorBefore: TextPosition(line: beforeLine, column: beforeColumn),
                cursorAfter: TextPosition(line: afterLine, column: afterColumn), kind: .received))
        }
        return steps
    }

    /// At least one line, none holding a line break.
    private static func lines(_ value: PropertyListValue?) -> [String]? {
        guard let array = value?.arrayValue, !array.isEmpty else { return nil }
        var lines: [String] = []
        for element in array {
            guard let line = element.stringValue,
                  !line.utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return nil }
            lines.append(line)
        }
        return lines
    }
}
