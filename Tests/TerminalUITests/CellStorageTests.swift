import Testing
@testable import TerminalUI

@Suite("Cells as plain bytes")
struct CellStorageTests {
    @Test("A cell is 24 bytes with nothing to retain, so frames copy and compare as memory")
    func cellIsPlainBytes() {
        #expect(MemoryLayout<Cell>.size == 24)
        #expect(MemoryLayout<Cell>.stride == 24)
        #expect(_isPOD(Cell.self))
    }

    @Test("Graphemes of every length come back as they went in, measured as before")
    func graphemesRoundTrip() throws {
        // 1, 2, 3, 4 bytes; a flag; a skin tone; an Indic conjunct; 16 bytes exactly (in the
        // cell); a family and a kiss with skin tones (longer than a cell holds).
        let samples = ["a", "é", "中", "👋", "🇩🇪", "👍🏽", "क्ष", "\u{E4}\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}", "👨‍👩‍👧", "👩🏽‍❤️‍💋‍👨🏻"]
        let lengths = samples.map(\.utf8.count)
        #expect(lengths.contains(16) && lengths.contains { $0 > 16 })
        for sample in samples {
            let character = try #require(sample.first)
            #expect(sample.count == 1, "\(sample) is one grapheme")
            let cell = Cell(character)
            #expect(cell.grapheme == sample)
            #expect(cell.utf8Count == sample.utf8.count)
            #expect(cell.width == character.terminalColumns)
            #expect(Cell.plain(character) == cell)
        }
        #expect(Cell("a").printableASCII == 0x61)
        #expect(Cell("é").printableASCII == nil)
        #expect(Cell.continuation().grapheme.isEmpty && Cell.continuation().isContinuation)
    }

    @Test("Cell.ascii makes the cell Cell.plain makes of each printable ASCII character, in any style, and nothing else")
    func asciiCells() {
        let style = Style(bold: true, foreground: .red)
        var made = 0
        for byte in UInt8(0)...UInt8(255) {
            let cell = Cell.ascii(byte, style: style)
            guard byte >= 0x20, byte < 0x7F else {
                #expect(cell == nil, "byte \(byte)")
                continue
            }
            #expect(cell == Cell.plain(Character(Unicode.Scalar(byte)), style: style), "byte \(byte)")
            #expect(cell?.printableASCII == byte && cell?.grapheme == String(Unicode.Scalar(byte)))
            made += 1
        }
        #expect(made == 95)
    }

    @Test("Long graphemes are told apart by their bytes, not by canonical equivalence")
    func longGraphemesKeepTheirBytes() {
        // Two marks of different combining classes in either order: equal as Strings, not as bytes.
        let base = "a" + String(repeating: "\u{301}", count: 6)
        let first = base + "\u{323}\u{302}"
        let second = base + "\u{302}\u{323}"
        #expect(first == second)
        #expect(first.utf8.count > 16)
        let a = Cell(uncheckedGrapheme: first, width: 1, style: .plain)
        let b = Cell(uncheckedGrapheme: second, width: 1, style: .plain)
        #expect(Array(a.grapheme.utf8) == Array(first.utf8))
        #expect(Array(b.grapheme.utf8) == Array(second.utf8))
        #expect(a != b)
        // The same long grapheme made twice is the same cell, bit for bit.
        #expect(a == Cell(uncheckedGrapheme: first, width: 1, style: .plain))
        #expect(a.hashValue == Cell(uncheckedGrapheme: first, width: 1, style: .plain).hashValue)
    }

    @Test("A full table of long graphemes takes no more; a cell then holds the scalars that fit")
    func fullTable() {
        let table = LongGraphemes(capacity: 2)
        let family = "👨‍👩‍👧"
        let kiss = "👩🏽‍❤️‍💋‍👨🏻"
        let third = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        #expect(table.number(of: family) == 0)
        #expect(table.number(of: kiss) == 1)
        #expect(table.number(of: family) == 0)
        #expect(table.number(of: third) == nil)
        #expect(table.string(at: 1) == kiss)
        let cut = Cell(cutting: third, width: 1, style: .plain)
        // 🏴 and three tag letters: 16 bytes, whole scalars only.
        #expect(Array(cut.grapheme.unicodeScalars) == Array(third.unicodeScalars.prefix(4)))
        #expect(cut.width == 1)
    }

    @Test("Frames with long graphemes compare and diff by content")
    func framesWithLongGraphemes() throws {
        var old = ScreenBuffer(width: 6, height: 1)
        old.put("a👨‍👩‍👧b", x: 0, y: 0)
        var new = ScreenBuffer(width: 6, height: 1)
        new.put("a👨‍👩‍👧c", x: 0, y: 0)
        #expect(new.diff(from: old).map(\.x) == [3])
        new.put("b", x: 3, y: 0)
        #expect(new == old)
        #expect(new.diff(from: old).isEmpty)
        try new.assertLines(["a👨‍👩‍👧b  "])
    }

    @Test("The long graphemes of a frame are found where a walk over every cell finds them, row by row")
    func longGraphemePlaces() {
        var frame = ScreenBuffer(width: 7, height: 3)
        frame.put("ab👨‍👩‍👧c", x: 0, y: 0)
        frame.put("क्ष é", x: 1, y: 1)
        frame.put("👩🏽‍❤️‍💋‍👨🏻", x: 5, y: 2)
        for limit in [0, 1, 2, 5, 16, 40] {
            var walked: [(x: Int, y: Int)] = []
            for y in 0..<frame.height {
                for x in 0..<frame.width where frame[x: x, y: y].utf8Count > limit { walked.append((x, y)) }
            }
            let found = frame.places(ofGraphemesLongerThan: limit)
            #expect(found.map(\.x) == walked.map(\.x) && found.map(\.y) == walked.map(\.y), "limit \(limit)")
        }
        #expect(frame.places(ofGraphemesLongerThan: 16).map(\.y) == [0, 2])
        #expect(ScreenBuffer(width: 0, height: 3).places(ofGraphemesLongerThan: 0).isEmpty)
    }
}
