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

    /// Paints line `index` (its text `text`), seen from display column `left`, into `width`
    /// cells at (`x`, `y`): each coloured run gets the rule's colour and boldness.
    func paint(line index: Int, text: String, buffer: TextBuffer, left: Int, x: Int, y: Int, width: Int, into frame: inout ScreenBuffer) {
        guard text.utf8.count <= Self.longLine, !text.isEmpty else { return }
        let open = openRegion(atLine: index, in: buffer)
        let colours = memo.colours(of: text, startingIn: open, syntax: syntax)
        guard !colours.spans.isEmpty else { return }
        // Display columns of each character's start, and the line's end.
        var columns: [Int] = []
        columns.reserveCapacity(text.count + 1)
        var column = 0
        for character in text {
            columns.append(column)
            column = TextBuffer.advance(from: column, over: character)
        }
        columns.append(column)
        for span in colours.spans {
            let lower = columns[min(span.characters.lowerBound, columns.count - 1)] - left
            let upper = columns[min(span.characters.upperBound, columns.count - 1)] - left
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
    /// The region each line starts in, for lines `0..<starts.count`, as of `version`.
    private var starts: [Int32] = []
    private var version: UInt64?
    private var syntaxName: String?
    /// The colours of the lines drawn in the last frame and in this one, by text and region.
    private var previousColours: [ColoursKey: CompiledSyntax.LineColours] = [:]
    private var currentColours: [ColoursKey: CompiledSyntax.LineColours] = [:]

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

    func colours(of text: String, startingIn open: Int?, syntax: CompiledSyntax) -> CompiledSyntax.LineColours {
        let key = ColoursKey(text: text, open: open)
        if let kept = currentColours[key] ?? previousColours[key] {
            currentColours[key] = kept
            return kept
        }
        let colours = syntax.colours(of: text, startingIn: open)
        currentColours[key] = colours
        return colours
    }

    func openRegion(atLine index: Int, in buffer: TextBuffer, syntax: CompiledSyntax) -> Int? {
        if syntaxName != syntax.name {
            starts = []
            syntaxName = syntax.name
        } else if let version, version != buffer.version {
            // Lines above the first edit start as they did.
            let first = buffer.recentEdits.firstChangedLine(since: version, current: buffer.version) ?? 0
            if first < .max { starts.removeSubrange(min(starts.count, first + 1)...) }
        }
        version = buffer.version
        if starts.isEmpty { starts.append(-1) }
        while starts.count <= index {
            let line = starts.count - 1
            let open = SyntaxColouring.openRegion(
                after: buffer.lineText(line), startingIn: starts[line] < 0 ? nil : Int(starts[line]), syntax: syntax)
            starts.append(open.map(Int32.init) ?? -1)
        }
        return starts[index] < 0 ? nil : Int(starts[index])
    }
}
