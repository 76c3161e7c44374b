/// A colour of a shell session's cell: the terminal's default, one of the 256 indexed colours
/// (0–15 the basic and bright ones), or a 24-bit colour.
public enum ShellColor: Hashable, Sendable {
    case `default`
    case indexed(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    /// As docs/PROTOCOL.md section 20 writes it: -1 the default, 0–255 an index, and
    /// 16,777,216 + 0xRRGGBB a 24-bit colour.
    public var wireValue: Int {
        switch self {
        case .default: -1
        case .indexed(let index): Int(index)
        case .rgb(let r, let g, let b): 0x100_0000 + Int(r) << 16 + Int(g) << 8 + Int(b)
        }
    }

    /// The colour of `wireValue`; nil for a number outside the three ranges.
    public init?(wireValue: Int) {
        switch wireValue {
        case -1: self = .default
        case 0...255: self = .indexed(UInt8(wireValue))
        case 0x100_0000...0x1FF_FFFF:
            let rgb = wireValue - 0x100_0000
            self = .rgb(UInt8(rgb >> 16), UInt8((rgb >> 8) & 0xFF), UInt8(rgb & 0xFF))
        default: return nil
        }
    }
}

/// How a shell session's cell is drawn: attributes and two colours.
public struct ShellStyle: Hashable, Sendable {
    /// Attributes, as bits (the wire's `attrs`, docs/PROTOCOL.md section 20).
    public struct Attributes: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let bold = Attributes(rawValue: 1)
        public static let underline = Attributes(rawValue: 2)
        public static let italic = Attributes(rawValue: 4)
        public static let blink = Attributes(rawValue: 8)
        public static let reverse = Attributes(rawValue: 16)
        public static let strike = Attributes(rawValue: 32)
        /// Every bit a style may hold.
        public static let all: Attributes = [.bold, .underline, .italic, .blink, .reverse, .strike]
    }

    public var foreground: ShellColor
    public var background: ShellColor
    public var attributes: Attributes

    public init(foreground: ShellColor = .default, background: ShellColor = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// No attributes, the default colours.
    public static let plain = ShellStyle()
}
