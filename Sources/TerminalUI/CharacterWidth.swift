/// How many terminal columns an extended grapheme cluster occupies.
///
/// The rules, in order:
/// - a cluster that starts with a control character (C0, DEL, C1) is 0: controls
///   are never drawn as themselves (see `String.sanitizedForTerminal`);
/// - a cluster made only of zero-width scalars (combining marks, format
///   characters such as U+200B, variation selectors) is 0;
/// - a cluster whose first scalar is East Asian Wide or Fullwidth (the table
///   below) is 2;
/// - an emoji is 2 when it has default emoji presentation
///   (`Unicode.Scalar.Properties.isEmojiPresentation`) or is followed by
///   U+FE0F VARIATION SELECTOR-16, unless U+FE0E asks for text presentation;
/// - everything else is 1. Combining marks, ZWJ sequences, skin-tone modifiers
///   and regional-indicator pairs never add width to their cluster.
///
/// Ambiguous-width characters count as 1, as in a terminal set up for a
/// non-CJK locale.
public enum CharacterWidth {
    /// The number of columns `character` takes: 0, 1 or 2.
    public static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if isControl(first) { return 0 }

        var base: Unicode.Scalar?
        var wantsEmoji = false
        var wantsText = false
        for scalar in scalars {
            switch scalar.value {
            case 0xFE0F: wantsEmoji = true
            case 0xFE0E: wantsText = true
            default:
                if base == nil && !isZeroWidth(scalar) { base = scalar }
            }
        }
        guard let base else { return 0 }

        if isEastAsianWide(base) { return 2 }
        if wantsText { return 1 }
        // No scalar below U+231A WATCH has default emoji presentation: Latin, Cyrillic and the
        // like are answered without a lookup in the Unicode tables.
        if base.value < 0x231A && !wantsEmoji { return 1 }
        let properties = base.properties
        if properties.isEmojiPresentation { return 2 }
        if wantsEmoji && properties.isEmoji { return 2 }
        return 1
    }

    /// Whether `scalar` is a one-column character whatever stands beside it: printable ASCII,
    /// or U+00A0–U+02FF but U+00AD SOFT HYPHEN. Nothing there is a control, a mark, a format
    /// character or a joiner, so a text made only of such scalars is one character per scalar,
    /// each one column, and safe as it is: titles, the status bar (`·`) and Latin-1 text are
    /// measured and drawn without segmenting them.
    public static func isNarrowAlone(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20..<0x7F: return true
        case 0xA0..<0x300: return scalar.value != 0xAD
        default: return false
        }
    }

    /// Whether `scalar` is a C0 control, DEL or a C1 control.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `scalar` takes no column of its own (combining marks, format
    /// characters, variation selectors, Hangul medial and final jamo).
    ///
    /// The variation selectors are nonspacing marks, so the general category covers them. The
    /// ranges answered first hold no marks or format characters (below U+0300 only U+00AD SOFT
    /// HYPHEN is one), so the commonest text skips the lookup in the Unicode tables.
    public static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x300:
            return scalar.value == 0xAD
        case 0x1160...0x11FF, 0xD7B0...0xD7FF: // Hangul jungseong / jongseong
            return true
        case 0x200B: // ZERO WIDTH SPACE (category Cf)
            return true
        case 0x3400...0x9FFF, 0xAC00...0xD7A3: // CJK ideographs, Yijing symbols, Hangul syllables
            return false
        default:
            break
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return true
        default:
            return false
        }
    }

    /// Whether `scalar` lies in an East Asian Wide or Fullwidth block.
    public static func isEastAsianWide(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks, sorted and disjoint.
    /// A compact table of the well-known blocks, not the full EastAsianWidth.txt;
    /// emoji outside these blocks are handled by `isEmojiPresentation`.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F,   // Hangul Jamo initial consonants
        0x2329...0x232A,   // angle brackets
        0x2E80...0x303E,   // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
        0x3041...0x33FF,   // Hiragana, Katakana, Bopomofo, Hangul compatibility jamo, Kanbun, CJK strokes, enclosed and compatibility
        0x3400...0x4DBF,   // CJK Unified Ideographs Extension A
        0x4E00...0x9FFF,   // CJK Unified Ideographs
        0xA000...0xA4CF,   // Yi syllables and radicals
        0xA960...0xA97F,   // Hangul Jamo Extended-A
        0xAC00...0xD7A3,   // Hangul syllables
        0xF900...0xFAFF,   // CJK Compatibility Ideographs
        0xFE10...0xFE19,   // vertical forms
        0xFE30...0xFE6F,   // CJK compatibility forms, small form variants
        0xFF00...0xFF60,   // fullwidth ASCII variants and punctuation
        0xFFE0...0xFFE6,   // fullwidth signs
        0x16FE0...0x16FE4, // ideographic symbols and punctuation
        0x17000...0x18CFF, // Tangut, Khitan
        0x1B000...0x1B2FF, // Kana supplement and extensions, Nushu
        0x1F200...0x1F2FF, // enclosed ideographic supplement
        0x20000...0x2FFFD, // CJK Extension B and beyond (plane 2)
        0x30000...0x3FFFD, // plane 3
    ]
}
