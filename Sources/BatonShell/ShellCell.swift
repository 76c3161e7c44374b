/// One column of a shell session's screen: the grapheme drawn there, the columns it takes and
/// its style. The column right of a wide (2-column) grapheme holds a continuation: no grapheme,
/// width 0, and the wide grapheme's style.
public struct ShellCell: Hashable, Sendable {
    /// What is drawn; empty for a continuation, " " for a blank.
    public var grapheme: String
    /// 1, 2 for a wide grapheme, or 0 for a continuation.
    public var width: UInt8
    public var style: ShellStyle

    public init(_ grapheme: String, width: UInt8 = 1, style: ShellStyle = .plain) {
        self.grapheme = grapheme
        self.width = width
        self.style = style
    }

    /// A blank in the default style.
    public static let blank = ShellCell(" ")

    /// The right half of a wide grapheme drawn in `style`.
    public static func continuation(_ style: ShellStyle) -> ShellCell { ShellCell("", width: 0, style: style) }

    public var isContinuation: Bool { width == 0 }
}
