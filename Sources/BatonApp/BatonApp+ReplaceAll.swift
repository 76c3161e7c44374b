import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension BatonApp {
    /// `a`: replaces the match asked about and every one after it, in the order replacing them
    /// one at a time would (to the end of the text, then from its start to where the replace
    /// began), in one pass over the text's bytes and one change to the buffer: 40,000 matches
    /// in 16 MB take a fraction of a second, not 40,000 edits of the rope. The text comes out
    /// as y, y, y … would leave it; each replacement is still its own undo step (the newest
    /// `EditHistory.maxSteps` of them are kept, as for any edits), and the cursor ends after
    /// the last one.
    /// False when the text's lines are not its `\n`-separated parts (nothing is replaced then,
    /// and the caller goes one at a time).
    static func replaceAll(_ pattern: TextPattern, _ replace: inout ReplaceState, _ state: inout EditorState, now: Date) -> Bool {
        let text = state.buffer.text
        let result = text.utf8.withContiguousStorageIfAvailable { all in
            replaceAll(in: all, pattern, replace, state, now: now)
        }
        guard let result, let (newText, changed, cursor, steps, count) = result else { return false }
        if count > 0 {
            state.history.seal()
            state.buffer.replaceText(newText, changedLines: changed, cursor: cursor)
            for step in steps { state.history.record(step, at: now) }
            state.isDirty = true
            replace.replaced += count
        }
        return true
    }

    /// `replaceAll`'s work on the text's bytes `all`: the new text, the lines changed, where the
    /// cursor goes, the undo steps kept, and how many were replaced; nil when the text's lines
    /// are not its `\n`-separated parts.
    private static func replaceAll(
        in all: UnsafeBufferPointer<UInt8>, _ pattern: TextPattern, _ replace: ReplaceState, _ state: EditorState, now: Date
    ) -> (String, Set<Int>, TextPosition, [EditStep], Int)? {
        let buffer = state.buffer
        let start = replace.match.start
        let origin = replace.origin
        // Where each line starts in the bytes: no line becomes a string of its own on the way.
        var lineStarts = [0]
        lineStarts.reserveCapacity(buffer.lineCount + 1)
        if let base = all.baseAddress {
            var offset = 0
            while offset < all.count, let found = memchr(base + offset, Int32(UInt8(ascii: "\n")), all.count - offset) {
                offset = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                lineStarts.append(offset)
            }
        }
        guard lineStarts.count == buffer.lineCount else { return nil }
        func bounds(_ line: Int) -> Range<Int> {
            lineStarts[line]..<(line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : all.count)
        }
        func offset(of position: TextPosition) -> Int {
            lineStarts[position.line] + byteOffset(ofColumn: position.column, in: all[bounds(position.line)])
        }
        // The stretches one-at-a-time goes through, in order: from the match to the end, then
        // from the start to where the replace began (or, wrapped already, the match to there).
        let stretches: [Range<Int>] = replace.wrapped
            ? [offset(of: start)..<max(offset(of: start), offset(of: origin))]
            : [offset(of: start)..<all.count, 0..<offset(of: origin)]
        let replacementBytes = Array(replace.replacement.utf8)
        // Each line as the replacements so far left it, and the undo step of each replacement.
        // A line is searched as one at a time would search it: from where the last replacement
        // in it ended, in its text with that replacement made.
        var current: [Int: [UInt8]] = [:]
        var steps: [EditStep] = []
        var count = 0
        var cursorAfter = start
        var groups = [regmatch_t](repeating: regmatch_t(), count: 10)
        for stretch in stretches {
            var byte = stretch.lowerBound
            var line = lineIndex(of: byte, in: lineStarts)
            while byte < stretch.upperBound {
                // The next line with a match in the stretch: for a literal, found where it is in
                // the bytes (most lines have none and are not looked at one by one).
                if let literal = pattern.literalBytes {
                    guard let found = TextPattern.find(
                        literal.bytes, ignoresCase: literal.ignoresCase, in: all, count: all.count, from: byte),
                        found < stretch.upperBound else { break }
                    while line + 1 < lineStarts.count && lineStarts[line + 1] <= found { line += 1 }
                    if found + literal.bytes.count > bounds(line).upperBound {
                        // Across a line break: no match; go on after it.
                        byte = found + 1
                        continue
                    }
                }
                let range = bounds(line)
                let from = max(byte, range.lowerBound) - range.lowerBound
                let before = stretch.upperBound <= range.upperBound ? stretch.upperBound - range.lowerBound : Int.max
                var bytes = current[line] ?? Array(all[range])
                var at = from
                var limit = before
                var changed = false
                while true {
                    let found: Range<Int>
                    let replacement: [UInt8]
                    if let literal = pattern.literalBytes {
                        guard let hit = bytes.withUnsafeBufferPointer({
                            TextPattern.find(literal.bytes, ignoresCase: literal.ignoresCase, in: $0, count: $0.count, from: at)
                        }) else { break }
                        found = hit..<(hit + literal.bytes.count)
                        replacement = replacementBytes
                    } else {
                        var prepared = TextPattern.PreparedLine(bytes: bytes)
                        guard let (hit, base) = pattern.firstByteMatch(in: &prepared, fromByte: at, groups: &groups) else { break }
                        let captured: [String?] = (1..<groups.count).map { index in
                            groups[index].rm_so < 0 ? nil
                                : prepared.text((base + Int(groups[index].rm_so))..<(base + Int(groups[index].rm_eo)))
                        }
                        found = hit
                        replacement = Array(pattern.replacement(replace.replacement, for: PatternMatch(columns: 0..<0, groups: captured)).utf8)
                    }
                    guard found.lowerBound < limit else { break }
                    let previous = bytes
                    bytes.replaceSubrange(found, with: replacement)
                    changed = true
                    count += 1
                    let end = found.lowerBound + replacement.count
                    // Where the replace began moves with a replacement before it.
                    if limit != Int.max { limit += replacement.count - found.count }
                    cursorAfter = TextPosition(line: line, column: characters(in: bytes[..<end]))
                    steps.append(EditStep(
                        line: line, removed: [String(decoding: previous, as: UTF8.self)],
                        inserted: [String(decoding: bytes, as: UTF8.self)],
                        cursorBefore: TextPosition(line: line, column: characters(in: previous[..<found.lowerBound])),
                        cursorAfter: cursorAfter, kind: .replace))
                    if steps.count > 2 * EditHistory.maxSteps { steps.removeFirst(steps.count - EditHistory.maxSteps) }
                    at = end
                }
                if changed { current[line] = bytes }
                // On to the next line.
                guard line + 1 < lineStarts.count else { break }
                line += 1
                byte = lineStarts[line]
            }
        }
        guard count > 0, let firstLine = current.keys.min(), let lastLine = current.keys.max() else {
            return ("", [], cursorAfter, [], 0)
        }
        // The new text: the lines before the first change and after the last as they were.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(all.count + count * max(0, replacementBytes.count - pattern.minimumMatch) + 16)
        bytes += all[..<lineStarts[firstLine]]
        for line in firstLine...lastLine {
            if line > firstLine { bytes.append(UInt8(ascii: "\n")) }
            if let changed = current[line] { bytes += changed } else { bytes += all[bounds(line)] }
        }
        bytes += all[bounds(lastLine).upperBound...]
        return (String(decoding: bytes, as: UTF8.self), Set(current.keys), cursorAfter, Array(steps.suffix(EditHistory.maxSteps)), count)
    }

    /// The line holding byte `offset`, given where each line starts.
    private static func lineIndex(of offset: Int, in starts: [Int]) -> Int {
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The UTF-8 offset of character `column` of the line `bytes` (its end past the last one).
    private static func byteOffset(ofColumn column: Int, in bytes: some Collection<UInt8>) -> Int {
        guard column > 0 else { return 0 }
        let line = String(decoding: bytes, as: UTF8.self)
        let index = line.index(line.startIndex, offsetBy: column, limitedBy: line.endIndex) ?? line.endIndex
        return line.utf8.distance(from: line.startIndex, to: index)
    }

    /// How many characters `bytes` (a line's start) hold.
    private static func characters(in bytes: ArraySlice<UInt8>) -> Int {
        String(decoding: bytes, as: UTF8.self).count
    }
}
