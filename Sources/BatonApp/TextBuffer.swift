import Synchronization
import TerminalUI

/// The text of an editing session and its cursor, edited by user-perceived character.
///
/// The text is kept in blocks of whole lines (`TextRope`), so an edit costs the block it
/// touches (a few hundred lines at most) and a walk over the blocks' line counts: typing
/// into 64 MB is as quick as into a note. Lines split at `\n` only; a `\r` is a character of its line
/// (the file layer turns CR LF into LF). The cursor moves by `Character`, so it never lands
/// inside 👋 or é. Vertical motion keeps the display column (中 is two columns wide) the
/// cursor had when it started moving. After every edit the touched lines are segmented
/// again, so a combining mark typed on its own joins the letter before it, exactly as `text`
/// will be read by a peer, and `cursor.column` always counts the `Character`s a receiver
/// will count.
public struct TextBuffer: Equatable, Sendable {
    var rope: TextRope {
        didSet { version = Self.nextVersion() }
    }
    /// Changes whenever the text does, and is never the same for two different texts: what
    /// the app compares to know the text changed, instead of megabytes of characters. (An
    /// edit undone by hand gets a new version although the text is the same again.)
    public internal(set) var version: UInt64 = TextBuffer.nextVersion()
    /// Where the cursor is; always inside the text.
    public private(set) var cursor: TextPosition
    /// The lines edits changed since the buffer was made or `takeLineChanges()` last asked.
    public private(set) var lineChanges: LineChanges
    /// The display column vertical moves aim for; reset by any horizontal move or edit.
    private var goalColumn: Int?
    /// Where the last edits began, by version (for caches kept from the top down).
    public private(set) var recentEdits = RecentEdits()

    /// Columns per tab stop: a tab character is drawn as spaces up to the next stop.
    public static let tabWidth = 4

    private static let versions = Atomic<UInt64>(0)

    private static func nextVersion() -> UInt64 {
        versions.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The lines changed since the last call (or since the buffer was made), and a fresh start.
    public mutating func takeLineChanges() -> LineChanges {
        defer { lineChanges = LineChanges(lineCount: rope.lineCount) }
        return lineChanges
    }

    /// Equal text, cursor and goal column; the version and the line changes are left out.
    public static func == (a: TextBuffer, b: TextBuffer) -> Bool {
        a.cursor == b.cursor && a.goalColumn == b.goalColumn && (a.version == b.version || a.rope == b.rope)
    }

    /// A buffer holding `text` (split at `\n`), the cursor clamped into it.
    public init(text: String = "", cursor: TextPosition = TextPosition(line: 0, column: 0)) {
        rope = TextRope(text)
        lineChanges = LineChanges(lineCount: rope.lineCount)
        textCache.keep(text, for: version)
        self.cursor = TextPosition(line: 0, column: 0)
        move(to: cursor)
    }

    /// A buffer as `init(text:cursor:)` whose lines count as long from `longLineBytes` bytes
    /// on, with a checkpoint every `checkpointSpacing` characters (tests make both small).
    init(text: String, cursor: TextPosition = TextPosition(line: 0, column: 0), longLineBytes: Int, checkpointSpacing: Int) {
        rope = TextRope(text, longLineBytes: longLineBytes, checkpointSpacing: checkpointSpacing)
        lineChanges = LineChanges(lineCount: rope.lineCount)
        textCache.keep(text, for: version)
        self.cursor = TextPosition(line: 0, column: 0)
        move(to: cursor)
    }

    /// The whole buffer. Made from the rope when asked for, and kept for as long as the
    /// version stands (copies of the buffer share it; a version names one text, so sharing is
    /// safe): nothing joins the text per key press.
    public var text: String {
        if let kept = textCache.value(for: version) { return kept }
        let joined = rope.string
        textCache.keep(joined, for: version)
        return joined
    }

    /// Whether `text` is at hand, joined and kept for this version: reading it costs nothing.
    public var isTextKept: Bool { textCache.value(for: version) != nil }

    /// The whole buffer, as `text`, but without keeping what it joins: for a copy made on
    /// another thread from a snapshot, which should not push out the main actor's text.
    public var textWithoutKeeping: String {
        textCache.value(for: version) ?? rope.string
    }

    private var textCache = TextCache()
    private var columnsCache = CursorColumnsCache()

    /// How many lines there are; at least 1.
    public var lineCount: Int { rope.lineCount }
    /// The characters of line `index` (from 0, less than `lineCount`), without its break.
    public func line(_ index: Int) -> [Character] { Array(rope.line(index)) }
    /// Line `index` as a string, without its break: for reading it through once (drawing it),
    /// where `line(_:)`'s array would segment it into characters only to be walked.
    public func lineText(_ index: Int) -> String { rope.line(index) }
    /// The line the cursor is on.
    public var currentLine: [Character] { line(cursor.line) }
    /// Whether the buffer holds no characters at all.
    public var isEmpty: Bool { rope.utf8Count == 0 }
    /// Bytes of UTF-8 the text takes.
    public var utf8Count: Int { rope.utf8Count }

    /// The display column of the cursor on its line.
    public var cursorDisplayColumn: Int { cursorColumns.start }
    /// Columns the character under the cursor takes (1 at the end of a line, never less than 1).
    public var cursorCharacterWidth: Int { cursorColumns.width }
    /// `cursorDisplayColumn` and `cursorCharacterWidth` from one walk over the cursor's line (near
    /// the cursor in a long line), once for a version and a cursor (`CursorColumnsCache`).
    public var cursorColumns: (start: Int, width: Int) {
        let key = CursorColumnsCacheKey(version: version, cursor: cursor)
        if let kept = columnsCache.value(for: key) { return (kept.start, kept.width) }
        let (place, character) = rope.place(ofCharacter: cursor.column, inLine: cursor.line)
        let width = character.map { max(1, Self.advance(from: place.column, over: $0) - place.column) } ?? 1
        columnsCache.keep(CursorColumnsCacheValue(start: place.column, width: width), for: key)
        return (place.column, width)
    }

    /// Whether line `index` is a long one (kept with checkpoints, so that reading it whole
    /// costs its length): then it is not read for things that need only its start.
    public func isLongLine(_ index: Int) -> Bool { rope.isLong(line: index) }

    /// Characters in line `index` (from 0, less than `lineCount`).
    public func characterCount(ofLine index: Int) -> Int { rope.characterCount(ofLine: index) }

    /// Where a view of line `index` scrolled to display column `left` starts drawing: the first
    /// character whose right edge is past `left` (every one before it is out of view); the
    /// line's start for a short line, which is quicker drawn whole than looked into.
    public func drawStart(ofLine index: Int, left: Int) -> LinePlace {
        left > 0 && rope.isLong(line: index) ? rope.place(atDisplayColumn: left, inLine: index) : .start
    }

    // MARK: Editing

    /// Replaces the text between two positions (clamped into the text; taken in order) with
    /// `text`, and returns the text removed. The cursor goes to the end of the inserted text.
    @discardableResult
    public mutating func replace(from start: TextPosition, to end: TextPosition, with text: String) -> String {
        let (lower, upper) = (clamped(start), clamped(end))
        let (from, to) = lower <= upper ? (lower, upper) : (upper, lower)
        goalColumn = nil
        guard from != to || !text.isEmpty else {
            cursor = from
            return ""
        }
        let versionBefore = version
        let (removed, end) = rope.replace(from: from, to: to, with: text)
        recentEdits.record(
            before: versionBefore, after: version, line: from.line, removed: to.line - from.line + 1,
            inserted: end.line - from.line + 1)
        lineChanges.record(line: from.line, removed: to.line - from.line + 1, inserted: end.line - from.line + 1)
        cursor = end
        return removed
    }

    /// Replaces the whole text with `text`, which has as many lines and differs only in `lines`,
    /// and puts the cursor at `cursor`: one build of the text's blocks, as opening a
    /// file is, for a change to lines all over it (replacing every match). What changed is
    /// recorded as one edit of those lines.
    public mutating func replaceText(_ text: String, changedLines lines: Set<Int>, cursor: TextPosition) {
        guard let first = lines.min(), let last = lines.max() else { return }
        let changed = first...last
        let versionBefore = version
        let lineCountBefore = rope.lineCount
        rope = TextRope(
            text, blockLines: rope.blockLines, blockBytes: rope.blockBytes, longLineBytes: rope.longLineBytes,
            checkpointSpacing: rope.indexes.spacing)
        recentEdits.record(
            before: versionBefore, after: version, line: changed.lowerBound, removed: changed.count,
            inserted: changed.count + rope.lineCount - lineCountBefore, exactLines: rope.lineCount == lineCountBefore ? lines : nil)
        lineChanges.record(
            line: changed.lowerBound, removed: changed.count, inserted: changed.count + rope.lineCount - lineCountBefore)
        textCache.keep(text, for: version)
        goalColumn = nil
        self.cursor = TextPosition(line: 0, column: 0)
        move(to: cursor)
    }

    /// Inserts text at the cursor; `\n` splits lines.
    public mutating func insert(_ text: String) {
        guard !text.isEmpty else { return }
        replace(from: cursor, to: cursor, with: text)
    }

    /// Inserts one character at the cursor (a line break splits the line).
    public mutating func insert(_ character: Character) { insert(String(character)) }

    /// Splits the line at the cursor.
    public mutating func insertNewline() { insert("\n") }

    /// Inserts a tab character, drawn up to the next tab stop.
    public mutating func insertTab() { insert("\t") }

    /// Deletes the character before the cursor, joining lines at a line start.
    /// Returns whether anything was deleted.
    @discardableResult
    public mutating func backspace() -> Bool {
        guard let before = position(before: cursor) else {
            goalColumn = nil
            return false
        }
        replace(from: before, to: cursor, with: "")
        return true
    }

    /// Deletes the character under the cursor, joining the next line at a line end.
    /// Returns whether anything was deleted.
    @discardableResult
    public mutating func deleteForward() -> Bool {
        guard let after = position(after: cursor) else {
            goalColumn = nil
            return false
        }
        replace(from: cursor, to: after, with: "")
        return true
    }

    // MARK: Motion

    /// One character left, or to the end of the line above.
    public mutating func moveLeft() {
        goalColumn = nil
        if let before = position(before: cursor) { cursor = before }
    }

    /// One character right, or to the start of the line below.
    public mutating func moveRight() {
        goalColumn = nil
        if let after = position(after: cursor) { cursor = after }
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
        cursor.column = rope.characterCount(ofLine: cursor.line)
    }

    /// Puts the cursor at a position, clamped into the text (positions from peers may be anywhere).
    public mutating func move(to position: TextPosition) {
        goalColumn = nil
        cursor = clamped(position)
    }

    private func clamped(_ position: TextPosition) -> TextPosition {
        let line = min(max(position.line, 0), rope.lineCount - 1)
        return TextPosition(line: line, column: min(max(position.column, 0), rope.characterCount(ofLine: line)))
    }

    /// One character before `position`, or the end of the line above; nil at the start.
    private func position(before position: TextPosition) -> TextPosition? {
        if position.column > 0 { return TextPosition(line: position.line, column: position.column - 1) }
        if position.line > 0 { return TextPosition(line: position.line - 1, column: rope.characterCount(ofLine: position.line - 1)) }
        return nil
    }

    /// One character after `position`, or the start of the line below; nil at the end.
    private func position(after position: TextPosition) -> TextPosition? {
        if position.column < rope.characterCount(ofLine: position.line) {
            return TextPosition(line: position.line, column: position.column + 1)
        }
        if position.line + 1 < rope.lineCount { return TextPosition(line: position.line + 1, column: 0) }
        return nil
    }

    private mutating func moveVertically(by delta: Int) {
        guard delta != 0 else { return }
        let goal = goalColumn ?? cursorDisplayColumn
        let target = cursor.line.addingSaturated(delta).clamped(0, rope.lineCount - 1)
        if target == cursor.line {
            // At the first or last line: go to its start or end, as most editors do.
            cursor.column = delta < 0 ? 0 : rope.characterCount(ofLine: cursor.line)
            goalColumn = nil
            return
        }
        cursor.line = target
        cursor.column = rope.place(atDisplayColumn: goal, inLine: target).character
        goalColumn = goal
    }
}
