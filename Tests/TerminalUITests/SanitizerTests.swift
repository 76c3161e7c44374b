import Testing
import TerminalUI

@Suite("Sanitizing text for the terminal")
struct SanitizerTests {
    @Test("ESC, NUL, BEL, CR, LF and DEL become control pictures")
    func c0Controls() {
        #expect("\u{1B}[2J".sanitizedForTerminal == "␛[2J")
        #expect("a\u{0}b".sanitizedForTerminal == "a␀b")
        #expect("\u{7}\r\n".sanitizedForTerminal == "␇␍␊")
        #expect("x\u{7F}".sanitizedForTerminal == "x␡")
    }

    @Test("C1 controls (8-bit CSI, OSC) become U+FFFD")
    func c1Controls() {
        #expect("\u{9B}31m".sanitizedForTerminal == "\u{FFFD}31m")
        #expect("\u{9D}0;title\u{9C}".sanitizedForTerminal == "\u{FFFD}0;title\u{FFFD}")
    }

    @Test("Bidi overrides, embeddings, isolates and marks become U+FFFD")
    func bidi() {
        let hostile = "abc\u{202E}fed\u{202C}\u{2066}x\u{2069}\u{200E}\u{200F}\u{061C}"
        #expect(hostile.sanitizedForTerminal == "abc\u{FFFD}fed\u{FFFD}\u{FFFD}x\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}")
    }

    @Test("Ordinary text, wide characters, emoji and ZWJ sequences pass unchanged")
    func safeText() {
        let text = "你好，wörld 👋 👨‍👩‍👧 e\u{301} 🇺🇸"
        #expect(text.sanitizedForTerminal == text)
    }

    @Test("No unsafe scalar survives, across the whole BMP")
    func nothingSurvives() {
        var all = String.UnicodeScalarView()
        for value in UInt32(0)...0xFFFF {
            if let scalar = Unicode.Scalar(value) { all.append(scalar) }
        }
        let cleaned = String(all).sanitizedForTerminal
        #expect(!cleaned.unicodeScalars.contains { TerminalSanitizer.isUnsafe($0) })
        #expect(!cleaned.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
}
