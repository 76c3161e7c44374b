import Synchronization
import TerminalUI

/// The text of an editing session and its cursor, edited by user-perceived character.
///
/// Lines hold `Character`s, so a cursor never lands inside 👋 or é. Vertical motion keeps
/// the display column (中 is two columns wide) the cursor had when it started moving.
/// After every edit the touched lines are segmented again, so a combining mark typed on
/// its own joins the letter before it, exactly as `text` will be read by a peer, and
/// `cursor.column` always counts the `Character`s a receiver will count.
public struct TextBuffer: Equatable, Sendable {
    /// The lines, without their line breaks; never empty.
    public private(set) var lines: [[Character]] {
        didSet { version = Self.nextVersion() }
    }
    /// Changes whenever the text does, and is never the same for two different texts: what
    /// the app compares to know the text changed, instead of megabytes of characters. (An
    /// edit undone by hand gets a new version although the text is the same again.)
    public private(set) var version: UInt64 = TextBuffer.nextVersion()
    /// Where the cursor is; always inside the text.
    public private(set) var cursor: TextPosition
    /// The display column vertical moves aim for; reset by any horizontal move or edit.
    private var goalColumn: Int?

    /// Columns per tab stop; Tab inserts spaces up to the next stop, and a tab character
    /// already in the text is shown as spaces up to the next stop.
    public static let tabWidth = 4

    private static let versions = Atomic<UInt64>(0)

    private static func nextVersion() -> UInt64 {
        versions.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Equal text, cursor and goal column; the version is left out.
    public static func == (a: TextBuffer, b: TextBuffer) -> Bool {
        a.cursor == b.cursor && a.goalColumn == b.goalColumn && (a.version == b.version || a.lines == b.lines)
    }

    /// A buffer holding `text` (split at `\n`, `\r\n` and `\r`), the cursor clamped into it.
    public init(text: String = "", cursor: TextPosition = TextPosition(line: 0, column: 0)) {
        lines = Self.split(text)
        // Without a carriage return the text is exactly what `text` would join again.
        if !text.utf8.contains(13) { textCache.keep(text, for: version) }
        self.cursor = TextPosition(line: 0, column: 0)
        move(to: cursor)
    }

    /// The whole buffer, lines joined by `\n`. Joining characters one by one is slow for a
    /// large text, so the result is kept for as long as the version stands (copies of the
    /// buffer share it; a version names one text, so sharing is safe).
    public var text: String {
        if let kept = textCache.text(for: version) { return kept }
        var joined = ""
        joined.reserveCapacity(lines.reduce(lines.count) { $0 + $1.count })
        for (index, line) in lines.enumerated() {
            if index > 0 { joined.append("\n") }
            for character in line { joined.append(character) }
        }
        textCache.keep(joined, for: version)
        return joined
    }

    private var textCache = TextCache()
    /// How many lines there are; at least 1.
    public var lineCount: Int { lines.count }
    /// The line the cursor is on.
    public var currentLine: [Character] { lines[cursor.line] }
    /// Whether the buffer holds no characters at all.
    public var isEmpty: Bool { lines.count == 1 && lines[0].isEmpty }

    /// The display column of the cursor on its line.
    public var cursorDisplayColumn: Int { Self.displayWidth(lines[cursor.line].prefix(cursor.column)) }

    /// Columns the character under the cursor takes (1 at the end of a line, never less than 1).
    public var cursorCharacterWidth: Int {
        let line = lines[cursor.line]
        guard cursor.column < line.count else { return 1 }
        let start = cursorDisplayColumn
        return max(1, Self.advance(from: start, over: line[cursor.column]) - start)
    }

    // MARK: Editing

    /// Inserts text at the cursor; line breaks (`\n`, `\r\n`, `\r`) split lines.
    public mutating func insert(_ text: String) {
        let pieces = Self.split(text)
        guard !text.isEmpty else { return }
        let line = lines[cursor.line]
        let before = String(line[..<cursor.column])
        let after = String(line[cursor.column...])
        if pieces.count == 1 {
            let head = before + String(pieces[0])
            lines[cursor.line] = Array(head + after)
            cursor.column = min(Array(head).count, lines[cursor.line].count)
        } else {
            var replacement = [Array(before + String(pieces[0]))]
            replacement.append(contentsOf: pieces[1..<(pieces.count - 1)].map { Array(String($0)) })
            let tail = String(pieces[pieces.count - 1])
            let last = Array(tail + after)
            replacement.append(last)
            lines.replaceSubrange(cursor.line...cursor.line, with: replacement)
            cursor = TextPosition(
                line: cursor.line + pieces.count - 1,
                column: min(Array(tail).count, last.count))
        }
        goalColumn = nil
    }

    /// Inserts one character at the cursor (a line break splits the line).
    public mutating func insert(_ character: Character) { insert(String(character)) }

    /// Splits the line at the cursor.
    public mutating func insertNewline() { insert("\n") }

    /// Inserts spaces up to the next tab stop.
    public mutating func insertTab() {
        let width = cursorDisplayColumn
        insert(String(repeating: " ", count: Self.tabWidth - width % Self.tabWidth))
    }

    /// Deletes the character before the cursor, joining lines at a line start.
    /// Returns whether anything was deleted.
    @discardableResult
    public mutating func backspace() -> Bool {
        goalColumn = nil
        if cursor.column > 0 {
            lines[cursor.line].remove(at: cursor.column - 1)
            cursor.column -= 1
            resegmentCurrentLine()
            return true
        } else if cursor.line > 0 {
            let removed = lines.remove(at: cursor.line)
            cursor.line -= 1
            cursor.column = lines[cursor.line].count
            lines[cursor.line].append(contentsOf: removed)
            resegmentCurrentLine()
            return true
        }
        return false
    }

    /// Deletes the character under the cursor, joining the next line at a line end.
    /// Returns whether anything was deleted.
    @discardableResult
    public mutating func deleteForward() -> Bool {
        goalColumn = nil
        if cursor.column < lines[cursor.line].count {
            lines[cursor.line].remove(at: cursor.column)
            resegmentCurrentLine()
            return true
        } else if cursor.line + 1 < lines.count {
            let next = lines.remove(at: cursor.line + 1)
            lines[cursor.line].append(contentsOf: next)
            resegmentCurrentLine()
            return true
        }
        return false
    }

    // MARK: Motion

    /// One character left, or to the end of the line above.
    public mutating func moveLeft() {
        goalColumn = nil
        if cursor.column > 0 {
            cursor.column -= 1
        } else if cursor.line > 0 {
            cursor.line -= 1
            cursor.column = lines[cursor.line].count
        }
    }

    /// One character right, or to the start of the line below.
    public mutating func moveRight() {
        goalColumn = nil
        if cursor.column < lines[cursor.line].count {
            cursor.column += 1
        } else if cursor.line + 1 < lines.count {
            cursor.line += 1
            cursor.column = 0
        }
    }

    /// `count` lines up, keeping the display column; on the first line, to its start.
    public mutating func moveUp(by count: Int = 1) { moveVertically(by: -max(count, 0)) }
    /// `count` lines down, keeping the display column; on the last line, to its end.
    public mutating func moveDown(by count: Int = 1) { moveVertically(by: max(count, 0)) }

    /// To the start of the line.
    public mutating func moveToLineStart() {
        goalColumn = nil
        cursor.column = 0
    }

    /// To the end of the line.
    public mutating func moveToLineEnd() {
        goalColumn = nil
        cursor.column = lines[cursor.line].count
    }

    /// Puts the cursor at a position, clamped into the text (positions from peers may be anywhere).
    public mutating func move(to position: TextPosition) {
        goalColumn = nil
        let line = min(max(position.line, 0), lines.count - 1)
        cursor = TextPosition(line: line, column: min(max(position.column, 0), lines[line].count))
    }

    private mutating func moveVertically(by delta: Int) {
        guard delta != 0 else { return }
        let goal = goalColumn ?? cursorDisplayColumn
        let target = cursor.line.addingSaturated(delta).clamped(0, lines.count - 1)
        if target == cursor.line {
            // At the first or last line: go to its start or end, as most editors do.
            cursor.column = delta < 0 ? 0 : lines[cursor.line].count
            goalColumn = nil
            return
        }
        cursor.line = target
        cursor.column = Self.column(in: lines[target], atDisplayColumn: goal)
        goalColumn = goal
    }

    /// Segments the cursor's line again after characters were removed or joined, keeping the
    /// cursor after the same text.
    private mutating func resegmentCurrentLine() {
        let line = lines[cursor.line]
        let head = String(line[..<cursor.column])
        let joined = Array(head + String(line[cursor.column...]))
        guard joined.count != line.count || joined != line else { return }
        lines[cursor.line] = joined
        cursor.column = min(Array(head).count, joined.count)
    }

    // MARK: Widths

    /// Columns a run of characters takes on a terminal when it starts at column 0
    /// (tabs reach the next tab stop; control characters take the width of their visible picture).
    public static func displayWidth(_ characters: some Sequence<Character>) -> Int {
        characters.reduce(0) { advance(from: $0, over: $1) }
    }

    /// The display column after `character` when it starts at display column `column`.
    public static func advance(from column: Int, over character: Character) -> Int {
        if character == "\t" { return (column / tabWidth + 1) * tabWidth }
        return column + columns(of: character)
    }

    /// Columns `character` takes as `ScreenBuffer` draws it: control and bidi characters are
    /// drawn as visible pictures, so they take the width of the picture.
    public static func columns(of character: Character) -> Int {
        if character.unicodeScalars.contains(where: TerminalSanitizer.isUnsafe) {
            return String(character).terminalColumns
        }
        return character.terminalColumns
    }

    /// The character index whose start is at or just before `displayColumn`.
    public static func column(in line: [Character], atDisplayColumn goal: Int) -> Int {
        var width = 0
        for (index, character) in line.enumerated() {
            let next = advance(from: width, over: character)
            if next > goal { return index }
            width = next
        }
        return line.count
    }

    /// The lines of `text`, split at LF only (a CR stays in its line; `LineEnding` takes a CRLF
    /// file's CRs out before the text gets here) and then cut into characters.
    private static func split(_ text: String) -> [[Character]] {
        var lines: [[Character]] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte == 10 else {
                index = utf8.index(after: index)
                continue
            }
            // Through a String: its fast grapheme walk is twice as quick as a Substring's.
            lines.append(Array(String(text[start..<index])))
            index = utf8.index(after: index)
            start = index
        }
        lines.append(Array(String(text[start..<utf8.endIndex])))
        return lines
    }
}
