import FoundationEssentials

/// Text a peer chose — names, hosts, apps, activity types, titles, activity IDs, userInfo keys
/// and strings, required keys — made fit to show on a terminal, on stderr or in a log line.
/// This is the one place that decides how: everything that prints peer text calls `visible`,
/// every JSON line goes through `escapingHazards(inJSON:)`.
///
/// A scalar has a `Hazard` when printing it as it is could act on the terminal (controls), move
/// the text around it (bidi controls), end a line for some readers and not others (U+2028,
/// U+2029), or show nothing at all (format characters and the other default-ignorable code
/// points, noncharacters, private use). `visible` writes such a scalar so that it can be seen:
///
/// - a C0 control as its control picture (ESC → ␛, NUL → ␀, LF → ␊), DEL as ␡, as the screen
///   draws them;
/// - every other one as `<U+XXXX>`: `<U+009B>` for the 8-bit CSI, `<U+202E>` for RIGHT-TO-LEFT
///   OVERRIDE, `<U+200B>`, `<U+3164>`, `<U+E0041>` for a tag.
///
/// Two invisible kinds are kept where they do their job, so that emoji still look like emoji:
/// ZERO WIDTH JOINER U+200D between two emoji (👨‍👩‍👧), and a variation selector right after a
/// character it can select for: VS15/VS16 (U+FE0E, U+FE0F) after an emoji (❤️, 1️⃣), the other
/// selectors after a letter, number or symbol beyond ASCII. Anywhere else they are shown. Tag
/// characters are always shown, even in the three subdivision flags: they can spell hidden
/// ASCII. ZERO WIDTH NON-JOINER is always shown too, though Persian and Indic text use it.
///
/// The screen's own sanitizer (`TerminalSanitizer` in TerminalUI) is the last line of defence
/// for everything drawn, and turns every control and bidi control into one inert scalar; the
/// hazards here are a superset of those, so peer text that went through `visible` reaches it
/// already safe.
public enum PeerText {
    /// Why a scalar cannot be shown as it is.
    public enum Hazard: Sendable, Equatable {
        /// General category Cc: C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F). A terminal acts on them.
        case control
        /// Bidi_Control: ALM U+061C, LRM and RLM U+200E/U+200F, the embeddings and overrides
        /// U+202A–U+202E, the isolates U+2066–U+2069. They reorder the text around them.
        case bidiControl
        /// LINE SEPARATOR U+2028 and PARAGRAPH SEPARATOR U+2029 (Zl, Zp).
        case separator
        /// No visible form of its own: the other format characters (Cf: U+00AD, U+200B–U+200D,
        /// U+2060–U+2064, U+FEFF, the tags U+E0000–U+E007F, …); every other
        /// Default_Ignorable_Code_Point (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0,
        /// variation selectors, COMBINING GRAPHEME JOINER); noncharacters; private use.
        case invisible
    }

    /// What printing `scalar` as it is could do, or nil when it is safe anywhere.
    public static func hazard(of scalar: Unicode.Scalar) -> Hazard? {
        switch scalar.value {
        // Blocks with no hazard, the common text, answered without a property lookup: JSON
        // lines of megabytes go through here. (A test holds them to `classify`.)
        case 0x20..<0x7F, 0xA0..<0xAD, 0xAE...0x02FF, 0x0370...0x0377, 0x0400...0x052F, 0x3041...0x3096,
            0x30A1...0x30FA, 0x4E00...0x9FFF, 0xAC00...0xD7A3:
            return nil
        default:
            return classify(scalar)
        }
    }

    /// `hazard(of:)` from the Unicode properties alone.
    static func classify(_ scalar: Unicode.Scalar) -> Hazard? {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control:
            return .control
        case .lineSeparator, .paragraphSeparator:
            return .separator
        case .format:
            return properties.isBidiControl ? .bidiControl : .invisible
        case .privateUse:
            return .invisible
        default:
            return properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint ? .invisible : nil
        }
    }

    /// `text` with every scalar that has a hazard written visibly (see above). Text that needs
    /// nothing comes back as it is, and the result of `visible` is its own `visible`.
    public static func visible(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return text }
        let scalars = text.unicodeScalars
        var result = String.UnicodeScalarView()
        // The scalar before, when it was kept as itself (nil when it was written as notation).
        var previous: Unicode.Scalar?
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            let next = index == scalars.endIndex ? nil : scalars[index]
            if hazard(of: scalar) == nil || isKept(scalar, after: previous, before: next) {
                result.append(scalar)
                previous = scalar
            } else {
                result.append(contentsOf: notation(for: scalar).unicodeScalars)
                previous = nil
            }
        }
        return String(result)
    }

    /// How `visible` writes a scalar that has a hazard: a control picture for C0 and DEL,
    /// `<U+XXXX>` (at least four hex digits) for the rest.
    public static func notation(for scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00...0x1F:
            return String(Character(Unicode.Scalar(0x2400 + scalar.value)!))
        case 0x7F:
            return "\u{2421}"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
        }
    }

    /// Whether an invisible `scalar` does its job where it stands, and so stays: a ZWJ between
    /// two emoji, a variation selector right after a character it selects for.
    static func isKept(_ scalar: Unicode.Scalar, after previous: Unicode.Scalar?, before next: Unicode.Scalar?) -> Bool {
        guard let previous else { return false }
        switch scalar.value {
        case 0x200D:
            guard let next else { return false }
            return isEmojiPart(previous) && next.value > 0x7F && next.properties.isEmoji
        case 0xFE0E, 0xFE0F:
            return previous.properties.isEmoji && !isVariationSelector(previous)
        case 0xFE00...0xFE0D, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F:
            guard previous.value > 0x7F, hazard(of: previous) == nil else { return false }
            switch previous.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber,
                .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
                return true
            default:
                return false
            }
        default:
            return false
        }
    }

    /// An emoji beyond ASCII (digits, `#` and `*` are emoji too, but only as keycap bases), or
    /// the VS16 that follows one.
    private static func isEmojiPart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFE0F || (scalar.value > 0x7F && scalar.properties.isEmoji)
    }

    private static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isVariationSelector
    }

    // MARK: JSON

    /// `json` with every scalar that has a hazard — context or not — written as a `\uXXXX`
    /// escape (a surrogate pair above U+FFFF). JSON text carries scalars beyond ASCII only
    /// inside strings, where the escape stands for the same scalar, so the value read back is
    /// unchanged, byte for byte; the text itself carries no control, bidi or invisible scalar.
    package static func escapingHazards(inJSON json: String) -> String {
        guard json.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return json }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            guard hazard(of: scalar) != nil else {
                bytes.append(contentsOf: UTF8.encode(scalar)!)
                continue
            }
            for unit in UTF16.encode(scalar)! {
                let hex = String(unit, radix: 16, uppercase: true)
                bytes.append(contentsOf: Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
