import PropertyList
import Testing
@testable import BatonShell

/// A row's runs (docs/PROTOCOL.md section 20) found by looking at the grapheme before each cell
/// only, against the whole run's text counted again at every cell, on random rows of the
/// graphemes that merge with their neighbours.
@Suite("A row's runs, one look back per cell")
struct ShellRunsTests {
    /// The runs by their definition: a cell joins the run when the run's whole text, with it,
    /// splits back into the run's cells and it.
    static func reference(_ cells: [ShellCell], styleIndex: (ShellStyle) -> Int) -> [PropertyListValue] {
        var runs: [PropertyListValue] = []
        var text = ""
        var graphemes: [String] = []
        var current: (style: ShellStyle, width: UInt8)?
        func flush() {
            guard let run = current, !graphemes.isEmpty else { return }
            runs.append(.array([.string(text), .integer(styleIndex(run.style)), .integer(Int(run.width))]))
            text = ""
            graphemes = []
            current = nil
        }
        var previousWide = false
        for cell in cells {
            if cell.isContinuation, previousWide {
                previousWide = false
                continue
            }
            let cell = cell.isContinuation ? ShellCell(" ", style: cell.style) : cell
            previousWide = cell.width == 2
            let alone = cell.grapheme.count != 1
            if alone || current.map({ $0.style != cell.style || $0.width != cell.width }) ?? true { flush() }
            if alone {
                runs.append(.array([.string(cell.grapheme), .integer(styleIndex(cell.style)), .integer(Int(cell.width)), .integer(1)]))
                continue
            }
            if !graphemes.isEmpty, (text + cell.grapheme).map(String.init) != graphemes + [cell.grapheme] { flush() }
            current = (cell.style, cell.width)
            text += cell.grapheme
            graphemes.append(cell.grapheme)
        }
        flush()
        return runs
    }

    /// Graphemes that join their neighbours: regional indicators, marks, ZWJ and emoji, Hangul
    /// jamo, a Devanagari consonant and its virama, CR and LF, a prepended mark (which takes the
    /// character after it); and plain ones.
    static let pieces = [
        "a", "b", " ", "~", "\u{600}", "e\u{301}", "\u{301}", "\u{200D}", "👩", "💻", "👩\u{200D}💻", "🇦", "🇧", "🇨", "🇦🇧",
        "\u{1100}", "\u{1161}", "\u{11A8}", "가", "क", "\u{94D}", "ष", "\u{FE0F}", "\r", "\n", "中",
    ]

    @Test("A regional indicator then a flag: two runs, since joined they would read back as another pair")
    func indicatorThenFlag() {
        let runs = ShellScreenUpdate.runs(of: [ShellCell("🇨"), ShellCell("🇦🇧")], styleIndex: { _ in 0 })
        #expect(runs == [.array(["🇨", 0, 1]), .array(["🇦🇧", 0, 1])])
    }

    @Test("The same runs as splitting the whole run again at every cell, on 3,000 random rows; each run reads back as its cells")
    func sameAsCountingAgain() {
        var generator = SystemRandomNumberGenerator()
        let styles = [ShellStyle.plain, ShellStyle(foreground: .indexed(2))]
        let styleIndex = { (style: ShellStyle) in style == .plain ? 0 : 1 }
        var merged = 0
        for _ in 0..<3_000 {
            var cells: [ShellCell] = []
            while cells.count < 16 {
                let grapheme = Self.pieces.randomElement(using: &generator)!
                let style = styles.randomElement(using: &generator)!
                // "~" wide too: an ASCII character drawn in two columns must not join a run of one.
                if grapheme == "中" || (grapheme == "~" && Bool.random(using: &generator)) {
                    cells += [ShellCell(grapheme, width: 2, style: style), .continuation(style)]
                } else {
                    cells.append(ShellCell(grapheme, style: style))
                }
            }
            let runs = ShellScreenUpdate.runs(of: cells, styleIndex: styleIndex)
            #expect(runs == Self.reference(cells, styleIndex: styleIndex), "\(cells.map(\.grapheme))")
            // What the receiver does with a run: one cell per grapheme of its text.
            let read = runs.flatMap { run -> [String] in
                guard case .array(let parts) = run, case .string(let text) = parts[0] else { return [] }
                return parts.count == 4 ? [text] : text.map(String.init)
            }
            #expect(read == cells.filter { !$0.isContinuation }.map(\.grapheme), "\(cells.map(\.grapheme))")
            merged += runs.count
        }
        #expect(merged > 3_000, "the rows made runs")
    }
}
