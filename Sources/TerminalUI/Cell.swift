import Synchronization

/// One column of a `ScreenBuffer`: a grapheme, the columns it takes, and its style.
///
/// A wide (2-column) grapheme occupies its own cell plus the cell to its right,
/// which holds a *continuation*: an empty grapheme of width 0. Cells can only be
/// made through initialisers that sanitize, so a cell never holds a control
/// character.
///
/// A cell is plain bytes (24 of them, nothing to retain or release): a frame of cells is made,
/// copied, compared and freed as one block of memory, which is most of what drawing a frame
/// costs. A grapheme of up to 16 bytes of UTF-8 is held in the cell; a longer one (a family
/// emoji, a long Indic conjunct) is kept once in a table the process shares, and the cell holds
/// its number there (see `LongGraphemes`). Equal cells are equal bytes.
public struct Cell: Hashable, Sendable {
    /// The grapheme's UTF-8, zero-filled after it; or, when `length` is `Cell.interned`, its
    /// number in `LongGraphemes` in the first word.
    private var storage: (UInt64, UInt64)
    /// Bytes of `storage` the grapheme takes (0…16), or `Cell.interned`.
    private var length: UInt8
    /// Columns the grapheme takes.
    private var columns: UInt8
    /// How the grapheme is drawn.
    public var style: Style
    /// Fills the cell's last byte, so a cell has no padding and its bytes are all its own
    /// (rows are compared with `memcmp`).
    private var unused: UInt8 = 0

    /// The grapheme drawn here; empty for the continuation of a wide grapheme.
    public var grapheme: String {
        if length == Cell.interned { return LongGraphemes.shared.string(at: storage.0) }
        return withUnsafeBytes(of: storage) { bytes in
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<Int(length)]), as: UTF8.self)
        }
    }

    /// Columns the grapheme takes: 1 or 2, or 0 for a continuation.
    public var width: Int { Int(columns) }

    /// The grapheme's length in UTF-8 bytes.
    public var utf8Count: Int {
        length == Cell.interned ? LongGraphemes.shared.string(at: storage.0).utf8.count : Int(length)
    }

    /// The grapheme's byte when it is one printable ASCII character, else nil: most cells, which
    /// a backend writes without looking at the grapheme as a string.
    public var printableASCII: UInt8? {
        guard length == 1 else { return nil }
        let byte = withUnsafeBytes(of: storage) { $0[0] }
        return byte >= 0x20 && byte < 0x7F ? byte : nil
    }

    /// `length` of a grapheme kept in `LongGraphemes`.
    private static let interned: UInt8 = 0xFF
    /// The most UTF-8 bytes a cell holds itself.
    static let inlineBytes = 16

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

    /// The cell showing the printable ASCII character `byte` (0x20 to 0x7E), nil for any other
    /// byte: what `plain` makes of it, with no `Character` to take apart.
    public static func ascii(_ byte: UInt8, style: Style = .plain) -> Cell? {
        guard byte >= 0x20, byte < 0x7F else { return nil }
        var cell = Cell.blank
        cell.style = style
        withUnsafeMutableBytes(of: &cell.storage) { $0[0] = byte }
        return cell
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
        storage = (0, 0)
        length = 0
        columns = UInt8(truncatingIfNeeded: width)
        self.style = style
        var text = uncheckedGrapheme
        let fits = text.withUTF8 { bytes -> Bool in
            guard bytes.count <= Cell.inlineBytes else { return false }
            withUnsafeMutableBytes(of: &storage) { target in
                UnsafeMutableRawBufferPointer(rebasing: target[..<bytes.count]).copyMemory(from: UnsafeRawBufferPointer(bytes))
            }
            length = UInt8(bytes.count)
            return true
        }
        guard !fits else { return }
        if let number = LongGraphemes.shared.number(of: text) {
            storage = (number, 0)
            length = Cell.interned
            return
        }
        // The table is full (hostile input: tens of thousands of different long clusters).
        self = Cell(cutting: text, width: width, style: style)
    }

    /// A cell holding `text`'s first scalars, as many as fit in the cell whole, in `width`
    /// columns: a long grapheme when `LongGraphemes` has no room for it.
    init(cutting text: String, width: Int, style: Style) {
        storage = (0, 0)
        columns = UInt8(truncatingIfNeeded: width)
        self.style = style
        length = 0
        for scalar in text.unicodeScalars {
            guard Int(length) + UTF8.width(scalar) <= Cell.inlineBytes else { break }
            append(scalar)
        }
    }

    /// Only for a scalar already sanitized, one column wide (`CharacterWidth.isNarrowAlone`).
    init(uncheckedNarrowScalar scalar: Unicode.Scalar, style: Style) {
        storage = (0, 0)
        length = 0
        columns = 1
        self.style = style
        append(scalar)
    }

    /// Puts `scalar`'s UTF-8 after the bytes held in place; the caller checks it fits.
    private mutating func append(_ scalar: Unicode.Scalar) {
        withUnsafeMutableBytes(of: &storage) { target in
            for byte in scalar.utf8 {
                target[Int(length)] = byte
                length += 1
            }
        }
    }

    public static func == (a: Cell, b: Cell) -> Bool {
        a.storage.0 == b.storage.0 && a.storage.1 == b.storage.1 && a.length == b.length
            && a.columns == b.columns && a.style == b.style
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0)
        hasher.combine(storage.1)
        hasher.combine(length)
        hasher.combine(columns)
        hasher.combine(style)
    }
}

/// Graphemes longer than a `Cell` holds, each kept once for the whole process and known by its
/// number. Keyed by bytes, not by `String` equality, which would merge canonically equivalent
/// graphemes and draw one's bytes for the other. At most `capacity` of them: past that (only
/// hostile text has that many different long clusters), a cell holds its grapheme cut.
/// Numbers are never reused, so a cell's number stays good for the life of the process.
final class LongGraphemes: Sendable {
    static let shared = LongGraphemes(capacity: 16_384)
    let capacity: Int

    private struct Table {
        var strings: [String] = []
        var numbers: [[UInt8]: UInt64] = [:]
    }

    private let table = Mutex(Table())

    /// A table of at most `capacity` graphemes.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The number of `text`, added when new; nil when the table is full.
    func number(of text: String) -> UInt64? {
        let bytes = Array(text.utf8)
        return table.withLock { table in
            if let number = table.numbers[bytes] { return number }
            guard table.strings.count < capacity else { return nil }
            let number = UInt64(table.strings.count)
            table.strings.append(text)
            table.numbers[bytes] = number
            return number
        }
    }

    /// The grapheme numbered `number`.
    func string(at number: UInt64) -> String {
        table.withLock { $0.strings[Int(number)] }
    }
}
