import Glibc
import NCursesCore
import Testing

/// What NCursesCore works out without a terminal: restore strings without their padding, and
/// the cells a grapheme takes.
@Suite("Terminfo strings and curses cells")
struct NCursesCoreTests {
    @Test("Terminfo padding is removed from restore strings, other bytes kept")
    func padding() {
        let raw = Array("\u{1B}[m$<2>\u{1B}(B$<5*/>x$y$<a>".utf8)
        #expect(Terminfo.removingPadding(raw) == Array("\u{1B}[m\u{1B}(Bx$y$<a>".utf8))
    }

    @Test("A grapheme keeps all its scalars up to CCHARW_MAX, and no dangling joiner when cut")
    func glyphs() {
        _ = setlocale(LC_CTYPE, "C.UTF-8")
        let family = CursesCells.glyph(for: "👨‍👩‍👧")
        #expect(family.codepoints == [0x1F468, 0x200D, 0x1F469, 0x200D, 0x1F467])
        #expect(family.columns == 2)
        #expect(CursesCells.glyph(for: "👍🏽").codepoints == [0x1F44D, 0x1F3FD])
        #expect(CursesCells.glyph(for: "स्ते").codepoints == [0x938, 0x94D, 0x924, 0x947])
        #expect(CursesCells.glyph(for: "स्ते").columns == 1)
        // Seven scalars: cut to five, then the trailing joiner goes.
        let familyOfFour = CursesCells.glyph(for: "👨‍👩‍👧‍👦")
        #expect(familyOfFour.codepoints == [0x1F468, 0x200D, 0x1F469, 0x200D, 0x1F467])
        let accented = CursesCells.glyph(for: "e\u{301}")
        #expect(accented.codepoints == [0x65, 0x301])
        #expect(accented.columns == 1)
        #expect(CursesCells.glyph(for: "中").columns == 2)
        let flag = CursesCells.regionalIndicatorPair("🇺🇸")
        #expect(flag?.0 == 0x1F1FA && flag?.1 == 0x1F1F8)
        #expect(CursesCells.regionalIndicatorPair("中") == nil)
    }
}
