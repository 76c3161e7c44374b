/// One column of a `ScreenBuffer`: a grapheme, the columns it takes, and its style.
///
/// A wide (2-column) grapheme occupies its own cell plus the cell to its right,
/// which holds a *continuation*: an empty grapheme of width 0. Cells can only be
/// made through initialisers that sanitize, so a cell never holds a control
/// character.
public struct Cell: Hashable, Sendable {
    /// The grapheme drawn here; empty for the continuation of a wide grapheme.
    public private(set) var grapheme: String
    /// Columns the grapheme takes: 1 or 2, or 0 for a continuation.
    public private(set) var width: Int
    /// How the grapheme is drawn.
    public var style: Style

    /// The most Unicode scalars kept in one cell; longer clusters (stacked
    /// combining marks from hostile input) are cut here.
    public static let maximumScalars = 32

    /// A cell showing `character`, sanitized. A zero-width character becomes a blank.
    public init(_ character: Character, style: Style = .plain) {
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F {
            // Printable ASCII is safe as it is and one column wide.
            self.init(uncheckedGrapheme: String(character), width: 1, style: style)
            return
        }
        let safe = String(character).sanitizedForTerminal
        var first = safe.first ?? " "
        if first.unicodeScalars.count > Cell.maximumScalars {
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: first.unicodeScalars.prefix(Cell.maximumScalars))
            first = String(scalars).first ?? " "
        }
        let columns = first.terminalColumns
        if columns == 0 {
            self.init(uncheckedGrapheme: " ", width: 1, style: style)
        } else {
            self.init(uncheckedGrapheme: String(first), width: columns, style: style)
        }
    }

    /// The cell showing `character` as it is, measured once: nil when the sanitizer would
    /// change it, when it holds more than `maximumScalars` scalars, or when it takes no column
    /// (`init(_:style:)` makes those a replacement or a blank). For drawing text a character
    /// at a time, where most characters are plain and each would otherwise be measured again.
    public static func plain(_ character: Character, style: Style = .plain) -> Cell? {
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F {
            return Cell(uncheckedGrapheme: String(character), width: 1, style: style)
        }
        var count = 0
        for scalar in character.unicodeScalars {
            count += 1
            if count > maximumScalars || TerminalSanitizer.isUnsafe(scalar) { return nil }
        }
        let columns = CharacterWidth.columns(of: character)
        guard columns > 0 else { return nil }
        return Cell(uncheckedGrapheme: String(character), width: columns, style: style)
    }

    /// The right half of a wide grapheme.
    public static func continuation(style: Style = .plain) -> Cell {
        Cell(uncheckedGrapheme: "", width: 0, style: style)
    }

    /// A space in the plain style.
    public static let blank = Cell(uncheckedGrapheme: " ", width: 1, style: .plain)

    /// A space in `style`.
    public static func blank(style: Style) -> Cell {
        Cell(uncheckedGrapheme: " ", width: 1, style: style)
    }

    /// Whether this is the right half of a wide grapheme.
    public var isContinuation: Bool { width == 0 }

    /// Only for graphemes already sanitized and measured.
    init(uncheckedGrapheme: String, width: Int, style: Style) {
        self.grapheme = uncheckedGrapheme
        self.width = width
        self.style = style
    }
}
