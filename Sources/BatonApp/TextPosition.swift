/// A place in a text buffer: a 0-based line, and a 0-based column counted in characters
/// (extended grapheme clusters), as docs/PROTOCOL.md's `cursorColumn` counts them.
public struct TextPosition: Equatable, Comparable, Sendable, CustomStringConvertible {
    /// The line, from 0.
    public var line: Int
    /// The column in `Character`s, from 0 (not display columns: 中 counts 1).
    public var column: Int

    /// The position at `line`, `column`.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Earlier in the text: by line, then by column.
    public static func < (a: TextPosition, b: TextPosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    /// "line:column", both counted from 1 as editors show them.
    public var description: String { "\(line + 1):\(column + 1)" }
}
