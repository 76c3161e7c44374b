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

/// The ranges the width and the sanitizer answer without the Unicode tables agree with the
/// tables, for every scalar of the first four planes.
@Suite("Character width shortcuts")
struct CharacterWidthShortcutTests {
    static func everyScalar() -> [Unicode.Scalar] {
        (0...0x3FFFF).compactMap { Unicode.Scalar(UInt32($0)) }
    }

    @Test("Zero width: the shortcut ranges give what the general category and variation selectors give")
    func zeroWidth() {
        let scalars = Self.everyScalar()
        #expect(scalars.count > 250_000)
        var differing: [UInt32] = []
        for scalar in scalars {
            let byTables: Bool
            switch scalar.value {
            case 0x1160...0x11FF, 0xD7B0...0xD7FF, 0x200B: byTables = true
            default:
                switch scalar.properties.generalCategory {
                case .nonspacingMark, .enclosingMark, .format: byTables = true
                default: byTables = scalar.properties.isVariationSelector
                }
            }
            if CharacterWidth.isZeroWidth(scalar) != byTables { differing.append(scalar.value) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10).map { String($0, radix: 16) })")
    }

    @Test("Width of one scalar: no scalar below U+231A has emoji presentation")
    func emojiPresentation() {
        let below = Self.everyScalar().filter { $0.value < 0x231A && $0.properties.isEmojiPresentation }
        #expect(below.isEmpty)
        #expect(Character("\u{231A}").terminalColumns == 2)
        #expect(Character("a").terminalColumns == 1)
        #expect(Character("#\u{FE0F}").terminalColumns == 2, "a keycap base with VS16 still asks the tables")
    }

    @Test("Sanitizer: the shortcut ranges give what the control and bidi-control properties give")
    func sanitizer() {
        var differing: [UInt32] = []
        for scalar in Self.everyScalar() {
            let byTables: Bool
            switch scalar.value {
            case 0x00...0x1F, 0x7F: byTables = true
            default: byTables = scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
            }
            if TerminalSanitizer.isUnsafe(scalar) != byTables { differing.append(scalar.value) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10).map { String($0, radix: 16) })")
    }

    @Test("Narrow alone: each such scalar is one safe one-column character, whatever stands beside it")
    func narrowAlone() {
        let scalars = (UInt32(0)..<0x400).compactMap(Unicode.Scalar.init).filter(CharacterWidth.isNarrowAlone)
        // Printable ASCII and U+00A0–U+02FF but the soft hyphen.
        #expect(scalars.count == 95 + 0x260 - 1)
        for scalar in scalars {
            let character = Character(scalar)
            #expect(CharacterWidth.columns(of: character) == 1, "U+\(String(scalar.value, radix: 16))")
            #expect(!TerminalSanitizer.isUnsafe(scalar))
            // No join with a letter before or after it, or with itself.
            #expect("a\(character)a".count == 3, "U+\(String(scalar.value, radix: 16))")
            #expect("\(character)\(character)".count == 2)
        }
        let all = String(String.UnicodeScalarView(scalars))
        #expect(all.count == scalars.count)
        #expect(all.terminalColumns == scalars.count)
        // Just outside: a combining mark, the soft hyphen, a control.
        #expect(!CharacterWidth.isNarrowAlone("\u{301}"))
        #expect(!CharacterWidth.isNarrowAlone("\u{AD}"))
        #expect(!CharacterWidth.isNarrowAlone("\u{9F}"))
    }

    @Test("ScreenBuffer draws narrow-alone text as the character-by-character path does")
    func narrowAloneDrawing() throws {
        var fast = ScreenBuffer(width: 12, height: 1)
        fast.put(" Editor · ©ÿ", x: 0, y: 0, style: Style(reverse: true))
        // The same text with a zero-width space inside takes the general path.
        var general = ScreenBuffer(width: 12, height: 1)
        general.put(" Editor · ©\u{200B}ÿ", x: 0, y: 0, style: Style(reverse: true))
        #expect(fast == general)
        try fast.assertLines([" Editor · ©ÿ"])
        var cut = ScreenBuffer(width: 8, height: 1)
        #expect(cut.put("é · é · é", x: 2, y: 0, maxWidth: 4) == 4)
        try cut.assertLines(["  é ·   "])
    }
}
