import Handoff
import Testing
import TerminalUI
@testable import BatonApp

/// `drawScrolled` of a line draws printable ASCII and tabs from the bytes: the frame must be the
/// one drawn a `Character` at a time, whatever follows the ASCII (a combining mark that joins it,
/// a control character, a wide one), wherever the view starts and however wide it is.
@Suite("A scrolled line drawn from its bytes")
struct ScrolledLineDrawingTests {
    static let pieces = [
        "a", "Z", " ", "~", "{", "\t", "\t", "e\u{301}", "中", "👍🏽", "\u{7}", "\u{7F}", "\r\n", "\r", "x\u{200D}", "é", "\u{1b}[2J",
    ]

    static func randomLine(_ random: inout SplitMix64) -> String {
        let count = Int(random.next() % 24)
        return (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    /// The frame and the cut marks drawn both ways.
    static func drawBothWays(_ line: String, left: Int, width: Int, start: LinePlace = .start)
        -> (fast: ScreenBuffer, fastCut: (Bool, Bool), slow: ScreenBuffer, slowCut: (Bool, Bool)) {
        var fast = ScreenBuffer(width: 16, height: 1)
        var slow = fast
        let fastCut = fast.drawScrolled(line, from: left, start: start, x: 2, y: 0, width: width)
        let rest = line[line.utf8.index(line.startIndex, offsetBy: start.utf8)...]
        let slowCut = slow.drawScrolled(Array(rest), from: left, startColumn: start.column, x: 2, y: 0, width: width)
        return (fast, fastCut, slow, slowCut)
    }

    @Test("2,000 random lines, every start column 0–12 and width 1–12: the same cells and marks as a Character at a time")
    func randomLines() {
        var random = SplitMix64(seed: 41)
        var drawn = 0
        for _ in 0..<2_000 {
            let line = Self.randomLine(&random)
            let left = Int(random.next() % 13)
            let width = 1 + Int(random.next() % 12)
            let result = Self.drawBothWays(line, left: left, width: width)
            #expect(result.fast == result.slow, "\(line.debugDescription) from \(left) in \(width)")
            #expect(result.fastCut == result.slowCut, "\(line.debugDescription) from \(left) in \(width)")
            drawn += 1
        }
        #expect(drawn == 2_000)
    }

    @Test("From a place inside the line (a long line's checkpoint), the same as the rest drawn a Character at a time")
    func fromAPlace() {
        let line = "ab\tcd中e\u{301}fgh\tij"
        var checked = 0
        var place = LinePlace.start
        for character in line {
            for left in place.column..<(place.column + 6) {
                let result = Self.drawBothWays(line, left: left, width: 7, start: place)
                #expect(result.fast == result.slow && result.fastCut == result.slowCut, "from \(place) seen from \(left)")
                checked += 1
            }
            place = LinePlace(
                character: place.character + 1, utf8: place.utf8 + character.utf8.count,
                column: TextBuffer.advance(from: place.column, over: character))
        }
        #expect(checked == line.count * 6)
    }

    @Test("An ASCII letter that a combining mark follows is drawn with it, as one character")
    func combiningMark() {
        var frame = ScreenBuffer(width: 8, height: 1)
        frame.drawScrolled("ae\u{301}b", from: 0, start: .start, x: 0, y: 0, width: 8)
        #expect(frame[x: 1, y: 0].grapheme == "e\u{301}")
        #expect(frame[x: 2, y: 0].grapheme == "b")
    }
}
