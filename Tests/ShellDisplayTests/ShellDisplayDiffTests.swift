import BatonShell
import Testing
@testable import ShellDisplay

@Suite("The diff and the sanitizing as defined, against their fast paths")
struct ShellDisplayDiffTests {
    /// The runs as defined: every cell compared as a value, a wide grapheme's halves together.
    static func definedRuns(from old: [[ShellCell]], to new: [[ShellCell]]) -> [ShellDisplayRun] {
        var runs: [ShellDisplayRun] = []
        for (index, (before, after)) in zip(old, new).enumerated() where before != after {
            var changed = zip(before, after).map { $0 != $1 }
            for column in changed.indices where changed[column] {
                if after[column].isContinuation || before[column].isContinuation, column > 0 { changed[column - 1] = true }
                if after[column].width == 2 || before[column].width == 2, column + 1 < changed.count { changed[column + 1] = true }
            }
            // Each stretch of changed cells, found where it ends.
            var start: Int?
            for column in 0...changed.count {
                let isChanged = column < changed.count && changed[column]
                if isChanged, start == nil { start = column }
                if !isChanged, let first = start {
                    runs.append(ShellDisplayRun(row: index, column: first, cells: Array(after[first..<column])))
                    start = nil
                }
            }
        }
        return runs
    }

    /// A random cell: ASCII, a control character, a mark, a wide grapheme or its continuation
    /// (without its other half, sometimes), a width out of range, a long cluster made afresh
    /// each time (equal strings in other storage), in one of three styles.
    static func cell(_ generator: inout some RandomNumberGenerator) -> ShellCell {
        let styles = [ShellStyle.plain, ShellStyle(foreground: .indexed(1)), ShellStyle(attributes: .bold)]
        let style = styles.randomElement(using: &generator)!
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return ShellCell("\u{7}", style: style)
        case 1: return ShellCell("中", width: 2, style: style)
        case 2: return .continuation(style)
        case 3: return ShellCell("e\u{301}", style: style)
        case 4: return ShellCell("b", width: 9, style: style)
        case 5: return ShellCell(["\u{1F469}", "\u{200D}", "\u{1F469}", "\u{200D}", "\u{1F467}"].joined(), width: 2, style: style)
        case 6: return ShellCell("", style: style)
        default: return ShellCell(String(UnicodeScalar(UInt8.random(in: 0x20..<0x7F, using: &generator))), style: style)
        }
    }

    @Test("The runs of 3,000 random pairs of grids are the runs as defined")
    func runsAsDefined() {
        var generator = SystemRandomNumberGenerator()
        var compared = 0
        for _ in 0..<3_000 {
            let columns = Int.random(in: 1...12, using: &generator)
            let old = (0..<3).map { _ in (0..<columns).map { _ in Self.cell(&generator) } }
            var new = old
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                new[Int.random(in: 0..<3, using: &generator)][Int.random(in: 0..<columns, using: &generator)] = Self.cell(&generator)
            }
            // Sometimes a row equal to the old one in storage of its own.
            if Bool.random(using: &generator) { new[0] = old[0].map { ShellCell(String(Array($0.grapheme)), width: $0.width, style: $0.style) } }
            let result = ShellDisplayDiff.runs(from: old, to: new)
            #expect(!result.full)
            #expect(result.runs == Self.definedRuns(from: old, to: new))
            compared += 1
        }
        #expect(compared == 3_000)
    }

    @Test("Sanitizing 3,000 random rows gives what it gives a cell at a time")
    func sanitizingAsDefined() {
        var generator = SystemRandomNumberGenerator()
        var plain = 0
        for _ in 0..<3_000 {
            let columns = Int.random(in: 1...8, using: &generator)
            let asciiOnly = Bool.random(using: &generator)
            let row = (0..<columns).map { _ in
                asciiOnly ? ShellCell(String(UnicodeScalar(UInt8.random(in: 0x20..<0x7F, using: &generator)))) : Self.cell(&generator)
            }
            let clean = ShellDisplayLayout.sanitized(row)
            // Cell by cell: each cell sanitized within a row of its own neighbours.
            #expect(clean.count == row.count)
            #expect(clean.allSatisfy { !$0.grapheme.unicodeScalars.contains(where: ShellKeyDecoder.isControl) && $0.width <= 2 })
            for (index, cell) in clean.enumerated() {
                if cell.width == 2 { #expect(index + 1 < clean.count && clean[index + 1].isContinuation) }
                if cell.width == 0 { #expect(index > 0 && clean[index - 1].width == 2) }
                if cell.width > 0 { #expect(!cell.grapheme.isEmpty) }
            }
            if row.allSatisfy(ShellDisplayLayout.isPrintableASCII) {
                #expect(clean == row)
                plain += 1
            }
        }
        #expect(plain > 1_000, "rows of printable ASCII took the fast path")
    }
}
