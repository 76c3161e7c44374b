/// Splits bytes read from a pipe into complete lines, keeping a partial last line for later.
struct LineSplitter {
    private var pending: [UInt8] = []

    /// Adds bytes and returns the lines they complete, without their newlines.
    mutating func append(_ bytes: some Sequence<UInt8>) -> [String] {
        pending += bytes
        var complete: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            complete.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return complete
    }

    /// What is left after the last newline, once the stream has ended; nil when nothing.
    mutating func remainder() -> String? {
        defer { pending.removeAll() }
        return pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self)
    }
}
