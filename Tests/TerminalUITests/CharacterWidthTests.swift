import Testing
import TerminalUI

@Suite("Character widths")
struct CharacterWidthTests {
    @Test("ASCII letters, digits and punctuation take one column", arguments: ["a", "Z", "7", "~", " "] as [Character])
    func ascii(_ character: Character) {
        #expect(character.terminalColumns == 1)
    }

    @Test("CJK, Hangul, fullwidth forms and CJK punctuation take two columns",
          arguments: ["中", "你", "好", "，", "。", "가", "Ａ", "ア", "𠀀"] as [Character])
    func eastAsianWide(_ character: Character) {
        #expect(character.terminalColumns == 2)
    }

    @Test("Emoji with emoji presentation, flags, ZWJ sequences and skin tones take two columns",
          arguments: ["👋", "🇺🇸", "👨‍👩‍👧", "👍🏽", "☺️", "1️⃣", "⌚"] as [Character])
    func emoji(_ character: Character) {
        #expect(character.terminalColumns == 2)
    }

    @Test("Combining marks do not add width: e + U+0301 is one column")
    func combining() {
        let decomposed: Character = "e\u{301}"
        #expect(decomposed.unicodeScalars.count == 2)
        #expect(decomposed.terminalColumns == 1)
        #expect(("é" as Character).terminalColumns == 1)
    }

    @Test("Text-presentation symbols take one column; U+FE0E keeps an emoji narrow")
    func textPresentation() {
        #expect(("☺" as Character).terminalColumns == 1)
        #expect(("⌚\u{FE0E}" as Character).terminalColumns == 1)
        #expect(("©" as Character).terminalColumns == 1)
    }

    @Test("Controls and lone zero-width characters take no column")
    func zeroWidth() {
        // Not a parameterized test: the arguments would be printed raw into the test log.
        let characters: [Character] = ["\u{1B}", "\u{0}", "\u{7F}", "\u{9B}", "\u{301}", "\u{200B}", "\u{200D}"]
        for character in characters {
            #expect(character.terminalColumns == 0, "U+\(String(character.unicodeScalars.first!.value, radix: 16))")
        }
    }

    @Test("A string's width is the sum of its characters'")
    func stringWidth() {
        #expect("你好，wörld 👋".terminalColumns == 14)
        #expect("".terminalColumns == 0)
        #expect("abc".terminalColumns == 3)
    }

    @Test("The East Asian Wide table is sorted and disjoint, and its edges are right")
    func tableEdges() {
        #expect(CharacterWidth.isEastAsianWide("\u{1100}"))
        #expect(!CharacterWidth.isEastAsianWide("\u{1160}"))
        #expect(CharacterWidth.isEastAsianWide("\u{FF60}"))
        #expect(!CharacterWidth.isEastAsianWide("\u{FF61}"))  // halfwidth ideographic full stop
        #expect(!CharacterWidth.isEastAsianWide("\u{303F}"))
        #expect(CharacterWidth.isEastAsianWide("\u{3FFFD}"))
        #expect(!CharacterWidth.isEastAsianWide("A"))
    }
}
