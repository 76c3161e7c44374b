import BatonShell
import Testing
@testable import ShellDisplay

@Suite("What a ShellDisplay draws: cropping, the status row, sanitizing, the diff")
struct ShellDisplayLayoutTests {
    /// Widths without libc: CJK and emoji two columns, everything else one.
    static func width(_ character: Character) -> Int {
        guard let value = character.unicodeScalars.first?.value else { return 0 }
        return (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value) || value >= 0x1F300 ? 2 : 1
    }

    static func screen(_ lines: [String], columns: Int) -> ShellScreen {
        var screen = ShellScreen(rows: lines.count, columns: columns)
        for (index, line) in lines.enumerated() {
            var cells: [ShellCell] = []
            for character in line {
                let wide = width(character) == 2
                cells.append(ShellCell(String(character), width: wide ? 2 : 1))
                if wide { cells.append(.continuation(.plain)) }
            }
            cells += Array(repeating: .blank, count: columns - cells.count)
            screen.setRow(index, cells)
        }
        return screen
    }

    static func text(_ row: [ShellCell]) -> String {
        row.filter { !$0.isContinuation }.map(\.grapheme).joined()
    }

    @Test("A grid that reuses the rows drawn last time is the grid drawn afresh, through 2,000 random changes, the status row coming and going")
    func reusingRows() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "b", " ", "中", "\u{7}", "e\u{301}", "x"]
        var screen = Self.screen(["hello", "world", "again"], columns: 5)
        var previous: ShellDisplayLayout.Drawn?
        var reused = 0
        for _ in 0..<2_000 {
            // One row changes, or none.
            if Bool.random(using: &generator) {
                let row = Int.random(in: 0..<3, using: &generator)
                var cells: [ShellCell] = []
                while cells.count < 5 {
                    let piece = pieces.randomElement(using: &generator)!
                    if piece == "中", cells.count < 4 {
                        cells += [ShellCell(piece, width: 2), .continuation(.plain)]
                    } else if piece != "中" {
                        cells.append(ShellCell(piece))
                    }
                }
                screen.setRow(row, cells)
            }
            let status = Bool.random(using: &generator) ? "ok" : nil
            let fresh = ShellDisplayLayout.grid(screen, status: status, rows: 3, columns: 5, width: Self.width)
            let grid = ShellDisplayLayout.grid(screen, status: status, rows: 3, columns: 5, width: Self.width, reusing: previous)
            #expect(grid == fresh)
            if let previous { reused += zip(previous.source, screen.rows).filter { $0 == $1 }.count }
            previous = ShellDisplayLayout.Drawn(source: Array(screen.rows.prefix(status == nil ? 3 : 2)), grid: grid)
        }
        #expect(reused > 1_000, "rows were reused")
    }

    @Test("A larger screen is cropped from its top left; a wide grapheme cut by the edge is a blank")
    func cropping() {
        let screen = Self.screen(["abcd中", "efgh", "ijkl"], columns: 6)
        let grid = ShellDisplayLayout.grid(screen, status: nil, rows: 2, columns: 5, width: Self.width)
        #expect(grid.map(Self.text) == ["abcd ", "efgh "])
        #expect(grid.allSatisfy { $0.count == 5 })
    }

    @Test("A smaller screen is padded with blanks; the status takes the last row, in reverse video")
    func paddingAndStatus() {
        let screen = Self.screen(["ab", "cd"], columns: 2)
        let grid = ShellDisplayLayout.grid(screen, status: "中 x\u{7}y", rows: 4, columns: 6, width: Self.width)
        #expect(grid.map(Self.text) == ["ab    ", "cd    ", "      ", "中 xy "])
        #expect(grid[3].allSatisfy { $0.style.attributes == .reverse })
        #expect(grid[3][1].isContinuation)
        // The status replaces the screen's last row, and is cut where the next would not fit.
        let tall = ShellDisplayLayout.grid(Self.screen(["1", "2", "3"], columns: 1), status: "ab中", rows: 3, columns: 3, width: Self.width)
        #expect(tall.map(Self.text) == ["1  ", "2  ", "ab "])
    }

    @Test("The cursor is shown where the screen puts it, and hidden outside what is shown")
    func cursor() {
        var screen = Self.screen(["abc", "def", "ghi"], columns: 3)
        screen.cursorRow = 1
        screen.cursorColumn = 2
        #expect(ShellDisplayLayout.cursor(of: screen, status: nil, rows: 3, columns: 3)! == (1, 2))
        #expect(ShellDisplayLayout.cursor(of: screen, status: nil, rows: 3, columns: 2) == nil)
        #expect(ShellDisplayLayout.cursor(of: screen, status: "s", rows: 2, columns: 3) == nil)
        #expect(ShellDisplayLayout.cursor(of: screen, status: "s", rows: 3, columns: 3)! == (1, 2))
        screen.cursorVisible = false
        #expect(ShellDisplayLayout.cursor(of: screen, status: nil, rows: 3, columns: 3) == nil)
    }

    @Test("No control character is drawn, and wide graphemes without their other half are blanks")
    func sanitizing() {
        let red = ShellStyle(foreground: .indexed(1))
        let row = [
            ShellCell("a\u{1B}[2J"), ShellCell("\u{7}"), ShellCell("中", width: 2), ShellCell("x"),
            .continuation(red), ShellCell("b", width: 9), ShellCell("字", width: 2), .continuation(.plain),
        ]
        let clean = ShellDisplayLayout.sanitized(row)
        #expect(clean.map(\.grapheme) == ["a[2J", " ", " ", "x", " ", "b", "字", ""])
        #expect(clean.map(\.width) == [1, 1, 1, 1, 1, 1, 2, 0])
        #expect(clean[4].style == red)
    }

    @Test("Only changed cells are written: none for the same grid, a run for a change, all on a new size")
    func diff() {
        let before = ShellDisplayLayout.grid(Self.screen(["hello", "world"], columns: 5), status: nil, rows: 2, columns: 5, width: Self.width)
        #expect(ShellDisplayDiff.runs(from: before, to: before).runs.isEmpty)
        #expect(ShellDisplayDiff.runs(from: before, to: before).full == false)
        let after = ShellDisplayLayout.grid(Self.screen(["help!", "world"], columns: 5), status: nil, rows: 2, columns: 5, width: Self.width)
        let changes = ShellDisplayDiff.runs(from: before, to: after)
        #expect(changes.full == false)
        #expect(changes.runs.map { [$0.row, $0.column] } == [[0, 3]])
        #expect(changes.runs.map { Self.text($0.cells) } == ["p!"])
        // A wide grapheme replacing two narrow ones comes with its continuation; its style
        // changing alone (the continuation's) writes it again.
        let wide = ShellDisplayLayout.grid(Self.screen(["he中o", "world"], columns: 5), status: nil, rows: 2, columns: 5, width: Self.width)
        #expect(ShellDisplayDiff.runs(from: before, to: wide).runs.map { [$0.column, $0.cells.count] } == [[2, 2]])
        var restyled = wide
        restyled[0][3] = .continuation(ShellStyle(attributes: .bold))
        #expect(ShellDisplayDiff.runs(from: wide, to: restyled).runs.map { [$0.column, $0.cells.count] } == [[2, 2]])
        // Another size, or nothing drawn before: every row whole.
        let smaller = ShellDisplayLayout.grid(Self.screen(["hello"], columns: 5), status: nil, rows: 1, columns: 4, width: Self.width)
        let full = ShellDisplayDiff.runs(from: before, to: smaller)
        #expect(full.full && full.runs.count == 1 && full.runs[0].cells.count == 4)
        #expect(ShellDisplayDiff.runs(from: nil, to: before).full)
        // The status row is part of the grid: only its change is written.
        let withStatus = ShellDisplayLayout.grid(Self.screen(["hello", "world"], columns: 5), status: "ok", rows: 2, columns: 5, width: Self.width)
        #expect(ShellDisplayDiff.runs(from: before, to: withStatus).runs.map(\.row) == [1])
    }
}
