/// Makes text safe to show on a terminal: nothing in it can be read by the
/// terminal as a control function.
///
/// The mapping, applied scalar by scalar, one scalar for one (a cell holds what it is given):
/// - C0 controls U+0000–U+001F (NUL, ESC, BEL, CR, LF, TAB, …) become the
///   matching Unicode control picture U+2400–U+241F (NUL → ␀, ESC → ␛, LF → ␊);
/// - DEL U+007F becomes ␡ (U+2421);
/// - the other controls (general category Cc: C1 U+0080–U+009F, including the 8-bit CSI
///   U+009B) and the bidi controls (Bidi_Control: LRM/RLM U+200E/U+200F, ALM U+061C, the
///   embeddings and overrides U+202A–U+202E and the isolates U+2066–U+2069) become U+FFFD �.
///
/// Everything else passes unchanged. `ScreenBuffer` applies this to all text
/// it stores, so a caller that forgets cannot leak control characters: it is the screen's last
/// line of defence. Peer text comes to it already through `PeerText.visible` (in Handoff),
/// which also shows invisible characters; its control and bidi-control hazards are these
/// same two Unicode properties, so the two never disagree on what is unsafe.
public enum TerminalSanitizer {
    /// The replacement for `scalar`, or nil when it is safe as it is.
    public static func replacement(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x00...0x1F:
            return Unicode.Scalar(0x2400 + scalar.value)
        case 0x7F:
            return "\u{2421}"
        case 0x20..<0x7F:
            return nil
        case 0x80...0x9F:  // C1: category Cc
            return "\u{FFFD}"
        case 0xA0..<0x61C, 0x3000...0x9FFF, 0xAC00...0xD7A3:
            // No control and no bidi control lies here (U+061C ARABIC LETTER MARK is the first
            // bidi control): the commonest text skips the lookup in the Unicode tables.
            return nil
        default:
            let properties = scalar.properties
            return properties.generalCategory == .control || properties.isBidiControl ? "\u{FFFD}" : nil
        }
    }

    /// Whether `scalar` would be replaced.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        replacement(for: scalar) != nil
    }

    /// `text` with every unsafe scalar replaced as described above.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(replacement(for: scalar) ?? scalar)
        }
        return String(result)
    }
}
