import Handoff
import HandoffWire

/// Text a hostile (or broken) peer puts in the fields it controls — activity type, title,
/// activity ID, peer name, host, app and version, userInfo keys and strings, required keys —
/// for tests that check that none of it reaches an output as it is.
public enum HostileText {
    /// OSC 52: sets the clipboard of the terminal that prints it.
    public static let osc52 = "\u{1B}]52;c;ZXZpbA==\u{07}"
    /// CSI: clears the screen.
    public static let csi = "\u{1B}[2J"
    /// The 8-bit CSI (C1 U+009B), which some terminals take as ESC [.
    public static let csi8bit = "\u{9B}31m"
    public static let nul = "a\u{0}b"
    public static let del = "x\u{7F}"
    /// Overrides, embeddings, isolates and marks that reorder what follows.
    public static let bidi = "abc\u{202E}fed\u{202C}\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}"
    /// LINE SEPARATOR and PARAGRAPH SEPARATOR.
    public static let separators = "one\u{2028}two\u{2029}"
    /// Zero-width space, non-joiner and joiner, word joiner, invisible operators, BOM, soft hyphen.
    public static let invisibles = "al\u{200B}i\u{200C}c\u{200D}e\u{2060}\u{2061}\u{2064}\u{FEFF}\u{00AD}"
    /// Tag characters, which can spell ASCII no one sees.
    public static let tags = "ok\u{E0001}\u{E0041}\u{E0042}\u{E007F}"
    /// The Hangul fillers: blank, and letters as far as Unicode is concerned.
    public static let hangulFillers = "\u{3164}\u{115F}\u{1160}\u{FFA0}"
    /// Variation selectors with nothing to select.
    public static let loneSelectors = "\u{FE0F}a\u{FE0F}b\u{FE00}"

    /// Each kind, by name.
    public static let kinds: [(name: String, text: String)] = [
        ("osc52", osc52), ("csi", csi), ("csi8bit", csi8bit), ("nul", nul), ("del", del), ("bidi", bidi),
        ("separators", separators), ("invisibles", invisibles), ("tags", tags), ("hangulFillers", hangulFillers),
        ("loneSelectors", loneSelectors),
    ]

    /// Every kind at once, joined by `|`.
    public static let all = kinds.map(\.text).joined(separator: "|")

    /// What in `output` must not be there: each byte 0x00–0x1F and 0x7F, and each scalar with a
    /// `PeerText.Hazard` (C1, bidi controls, U+2028/U+2029, the invisibles), as `byte 1B` or
    /// `U+202E`. Empty when the output is clean.
    public static func forbidden(in output: String) -> [String] {
        var found: [String] = []
        for byte in output.utf8 where byte < 0x20 || byte == 0x7F { found.append("byte " + hex(UInt32(byte), digits: 2)) }
        for scalar in output.unicodeScalars where scalar.value >= 0x80 && PeerText.hazard(of: scalar) != nil {
            found.append("U+" + hex(scalar.value, digits: 4))
        }
        return found
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
