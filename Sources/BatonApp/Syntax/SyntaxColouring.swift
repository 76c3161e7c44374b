import TerminalUI

/// Colours the editor's rows with a file's syntax. What it works out is kept in a
/// `SyntaxMemo` between frames when there is one (the `Program`'s `ViewMemo` holds it): which
/// syntax the file has, the region each line starts in (from the top down, kept until an
/// edit above), and the colours of the lines drawn last. Without one, a memo of its own
/// serves one frame, with the same result.
///
/// A line over `longLine` bytes is drawn plain, as are the lines after an open region in
/// one: matching every rule against a megabyte line on every key would cost more than it shows.
struct SyntaxColouring {
    static let longLine = 16 * 1024

    let syntax: CompiledSyntax
    let memo: SyntaxMemo

    /// The colouring for `state`'s file, or nil when no syntax applies to it.
    static func make(for state: EditorState, memo: SyntaxMemo?) -> SyntaxColouring? {
        let name = state.filePath ?? state.fileName
        // The first line decides only when the name does not (`header`); a long one is not read.
        let firstLine = state.buffer.isLongLine(0) ? nil : state.buffer.lineText(0)
        let memo = memo ?? SyntaxMemo()
        return memo.syntax(for: name, firstLine: firstLine).map { SyntaxColouring(syntax: $0, memo: memo) }
    }

    /// The region line `index` of `buffer` starts in.
    func openRegion(atLine index: Int, in buffer: TextBuffer) -> Int? {
        guard syntax.hasRegions, index > 0 else { return nil }
        return memo.openRegion(atLine: index, in: buffer, syntax: syntax)
    }

    static func openRegion(after text: String, startingIn open: Int?, syntax: CompiledSyntax) -> Int? {
        text.utf8.count > longLine ? open : syntax.openRegion(after: text, startingIn: open)
    }

    /// How line `index` (its text `text`) is coloured: the region it starts in, and what the
    /// view memo keys its row by besides the text (the syntax is the same for every row of a
    /// frame); nil for a line drawn plain (empty, or over `longLine` bytes).
    func row(line index: Int, text: String, buffer: TextBuffer) -> Row? {
        guard text.utf8.count <= Self.longLine, !text.isEmpty else { return nil }
        let open = openRegion(atLine: index, in: buffer)
        return Row(text: text, open: open, key: 2 + (open ?? -1))
    }

    /// `row(line:text:buffer:)`'s `key` for line `index` of `bytes` bytes, without its text:
    /// what a row kept from the last frame is looked up by; 0 for a line drawn plain.
    func rowKey(line index: Int, bytes: Int, buffer: TextBuffer) -> Int {
        guard bytes <= Self.longLine, bytes > 0 else { return 0 }
        return 2 + (openRegion(atLine: index, in: buffer) ?? -1)
    }

    struct Row {
        let text: String
        let open: Int?
        let key: Int
    }

    /// Paints `row`, seen from display column `left`, into `width` cells at (`x`, `y`): each
    /// coloured run gets the rule's colour and boldness.
    func paint(_ row: Row, left: Int, x: Int, y: Int, width: Int, into frame: inout ScreenBuffer) {
        for span in memo.displaySpans(of: row.text, startingIn: row.open, syntax: syntax) {
            let lower = span.columns.lowerBound - left
            let upper = span.columns.upperBound - left
            guard upper > 0, lower < width else { continue }
            for cellColumn in max(0, lower)..<min(width, upper) {
                var cell = frame[x: x + cellColumn, y: y]
                cell.style.foreground = span.style.foreground
                cell.style.bold = span.style.bold
                _ = frame.put(cell, x: x + cellColumn, y: y)
            }
        }
    }
}

/// What `SyntaxColouring` keeps from one frame to the next (see there).
final class SyntaxMemo {
    private var chosen: (name: String?, syntax: CompiledSyntax?)?
    /// The region each line starts in (-1: none), worked out for lines `0..<known` as of
    /// `version`; the entries past those are what the lines had before the edits since, moved
    /// with them, and `dirty` holds the lines whose text changed meanwhile.
    private var starts: [Int32] = []
    private var known = 0
    private var dirty: Set<Int> = []
    /// What line `known - 1` started in before the edits (the walk compares it with what it
    /// starts in now).
    private var frontierOld: Int32 = -1
    private var version: UInt64?
    private var syntaxName: String?
    /// The syntax of the last call: the same one again needs no comparison of names.
    private var lastSyntax: CompiledSyntax?
    /// The colours of the lines drawn in the last frame and in this one, by text and region.
    private var previousColours: [ColoursKey: [DisplaySpan]] = [:]
    private var currentColours: [ColoursKey: [DisplaySpan]] = [:]

    /// A coloured run in display columns.
    struct DisplaySpan {
        let columns: Range<Int>
        let style: Style
    }

    struct ColoursKey: Hashable {
        let text: String
        let open: Int?
    }

    /// Starts a frame: the colours kept since the last call become the ones to reuse.
    func startFrame() {
        swap(&previousColours, &currentColours)
        currentColours.removeAll(keepingCapacity: true)
    }

    func syntax(for name: String?, firstLine: String?) -> CompiledSyntax? {
        // Chosen when the file gets its name (opened, continued, saved under another), as
        // nano chooses: the first line then counts for a file whose name says nothing, and
        // typing into it later changes nothing.
        if let chosen, chosen.name == name { return chosen.syntax }
        let syntax = SyntaxLibrary.standard.syntax(forFileName: name, firstLine: firstLine)
        chosen = (name, syntax)
        return syntax
    }

    /// The coloured runs of `text`, which starts in region `open`, in display columns.
    func displaySpans(of text: String, startingIn open: Int?, syntax: CompiledSyntax) -> [DisplaySpan] {
        let key = ColoursKey(text: text, open: open)
        if let kept = currentColours[key] ?? previousColours[key] {
            currentColours[key] = kept
            return kept
        }
        let colours = syntax.colours(of: text, startingIn: open)
        var spans: [DisplaySpan] = []
        if !colours.spans.isEmpty {
            // Display columns of each character's start, and the line's end.
            var columns: [Int] = []
            columns.reserveCapacity(text.utf8.count + 1)
            var column = 0
            for character in text {
                columns.append(column)
                column = TextBuffer.advance(from: column, over: character)
            }
            columns.append(column)
            spans = colours.spans.map { span in
                let lower = columns[min(span.characters.lowerBound, columns.count - 1)]
                return DisplaySpan(columns: lower..<max(lower, columns[min(span.characters.upperBound, columns.count - 1)]), style: span.style)
            }
        }
        currentColours[key] = spans
        return spans
    }

    /// The region line `index` starts in, walking down from the last line known.
    ///
    /// What an edit changed is followed, as nano follows it: the starts below an edit are
    /// kept (moved down or up with the lines it added or removed), and the walk down works a
    /// line out again only where its text changed or where the region it starts in did;
    /// below that, lines take what they had. So a key typed at the top of 16 MB of C works out
    /// a line or two, and replacing every match works out the lines it changed. The first
    /// walk goes to the end (what nano does when it opens a file), so that the later ones
    /// have something to keep.
    func openRegion(atLine index: Int, in buffer: TextBuffer, syntax: CompiledSyntax) -> Int? {
        // A frame asks for each row's line in turn, of the same text and syntax, and all but
        // the first are known by then: answered from what is kept, without the checks below.
        if syntax === lastSyntax, version == buffer.version, index < known, index < starts.count {
            return starts[index] < 0 ? nil : Int(starts[index])
        }
        lastSyntax = syntax
        if syntaxName != syntax.name {
            reset()
            syntaxName = syntax.name
        } else if let version, version != buffer.version {
            if let edits = buffer.recentEdits.edits(since: version, current: buffer.version) {
                for edit in edits { follow(edit) }
            } else {
                reset()
            }
        }
        version = buffer.version
        if starts.isEmpty {
            starts = [-1]
            known = 1
            frontierOld = -1
            walk(to: buffer.lineCount - 1, in: buffer, syntax: syntax)
        }
        walk(to: min(index, buffer.lineCount - 1), in: buffer, syntax: syntax)
        guard index < starts.count else { return nil }
        return starts[index] < 0 ? nil : Int(starts[index])
    }

    private func reset() {
        starts = []
        known = 0
        dirty = []
    }

    /// Moves what is kept along with `edit`.
    private func follow(_ edit: RecentEdits.Edit) {
        if let lines = edit.exactLines {
            dirty.formUnion(lines)
            if let first = lines.min(), first + 1 < known {
                known = first + 1
                frontierOld = starts[first]
            }
            return
        }
        let line = edit.line
        // Lines line+1 ..< line+removed had starts of their own; the new lines after `line`
        // have none known yet (they are dirty, so none is read).
        let lower = min(line + 1, starts.count)
        let upper = min(line + edit.removed, starts.count)
        if line < starts.count {
            starts.replaceSubrange(lower..<upper, with: repeatElement(-1, count: max(0, edit.inserted - 1)))
        }
        let shift = edit.inserted - edit.removed
        if shift != 0 {
            dirty = Set(dirty.compactMap { $0 < line ? $0 : $0 >= line + edit.removed ? $0 + shift : nil })
        }
        dirty.formUnion(line..<(line + edit.inserted))
        if line + 1 < known {
            known = line + 1
            frontierOld = starts[line]
        }
    }

    /// How far past the last line known `walk` looks for a changed line at a time.
    static let lookAhead = 128

    /// Works out the starts of lines `known ... index`, and of those after them that an edit
    /// left as they were.
    private func walk(to index: Int, in buffer: TextBuffer, syntax: CompiledSyntax) {
        while known <= index {
            let line = known - 1
            let start = starts[line]
            let next: Int32
            if known < starts.count {
                // The start this line had, and the one the line after it had, before the edits.
                let oldNext = starts[known]
                if !dirty.contains(line) && start == frontierOld {
                    // This line's text and its start are as they were, so the lines after it
                    // start as they did too, up to the next line whose text changed: all known
                    // at once (with none changed, all of them), so that the next rows of a
                    // frame find theirs kept. The look for a changed line goes a screenful or
                    // two at a time: after replacing all, there are thousands.
                    var end = starts.count
                    if !dirty.isEmpty {
                        end = known
                        let limit = min(starts.count, known + Self.lookAhead)
                        while end < limit && !dirty.contains(end) { end += 1 }
                    }
                    known = min(end + 1, starts.count)
                    frontierOld = starts[known - 1]
                    continue
                } else {
                    next = SyntaxColouring.openRegion(
                        after: buffer.lineText(line), startingIn: start < 0 ? nil : Int(start), syntax: syntax)
                        .map(Int32.init) ?? -1
                }
                frontierOld = oldNext
                starts[known] = next
            } else {
                next = SyntaxColouring.openRegion(
                    after: buffer.lineText(line), startingIn: start < 0 ? nil : Int(start), syntax: syntax).map(Int32.init) ?? -1
                starts.append(next)
                frontierOld = next
            }
            dirty.remove(line)
            known += 1
        }
        if starts.count > buffer.lineCount {
            starts.removeSubrange(buffer.lineCount...)
            if known > starts.count {
                known = starts.count
                frontierOld = starts.last ?? -1
            }
        }
    }
}
