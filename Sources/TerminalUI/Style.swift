/// How a cell is drawn: attributes and an optional foreground colour.
public struct Style: Hashable, Sendable {
    /// Bold (or bright) text.
    public var bold: Bool
    /// Dim (faint) text.
    public var dim: Bool
    /// Foreground and background swapped.
    public var reverse: Bool
    /// Underlined text.
    public var underline: Bool
    /// The foreground colour, or nil for the terminal's default.
    public var foreground: TerminalColor?

    /// A style with the given attributes; all off and the default colour unless given.
    public init(
        bold: Bool = false,
        dim: Bool = false,
        reverse: Bool = false,
        underline: Bool = false,
        foreground: TerminalColor? = nil
    ) {
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
        self.foreground = foreground
    }

    /// No attributes, default colour.
    public static let plain = Style()
}
