/// A frame a `TestBackend` was asked to draw, with its cursor and sequence number.
public struct DrawnFrame: Hashable, Sendable {
    /// The buffer as drawn.
    public let buffer: ScreenBuffer
    /// Where the cursor was put, or nil when hidden.
    public let cursor: CursorPosition?
    /// 1 for the first frame drawn, then counting up.
    public let number: Int

    /// A frame record.
    public init(buffer: ScreenBuffer, cursor: CursorPosition?, number: Int) {
        self.buffer = buffer
        self.cursor = cursor
        self.number = number
    }

    /// The frame's rows as strings (see `ScreenBuffer.lines()`).
    public var lines: [String] { buffer.lines() }

    /// Whether any row contains `text`.
    public func contains(_ text: String) -> Bool {
        lines.contains { $0.contains(text) }
    }
}
