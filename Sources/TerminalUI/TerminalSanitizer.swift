/// Makes text safe to show on a terminal: nothing in it can be read by the
/// terminal as a control function.
///
/// The mapping, applied scalar by scalar:
/// - C0 controls U+0000–U+001F (NUL, ESC, BEL, CR, LF, TAB, …) become the
///   matching Unicode control picture U+2400–U+241F (NUL → ␀, ESC → ␛, LF → ␊);
/// - DEL U+007F becomes ␡ (U+2421);
/// - C1 controls U+0080–U+009F (including the 8-bit CSI U+009B) and the bidi
///   controls — LRM/RLM U+200E/U+200F, ALM U+061C, the embeddings and overrides
///   U+202A–U+202E and the isolates U+2066–U+2069 — become U+FFFD �.
///
/// Everything else passes unchanged. `ScreenBuffer` applies this to all text
/// it stores, so a caller that forgets cannot leak control characters.
public enum TerminalSanitizer {
    /// The replacement for `scalar`, or nil when it is safe as it is.
    public static func replacement(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x00...0x1F:
            return Unicode.Scalar(0x2400 + scalar.value)
        case 0x7F:
            return "\u{2421}"
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            return "\u{FFFD}"
        default:
            return nil
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
