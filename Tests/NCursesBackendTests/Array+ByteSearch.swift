extension Array where Element == UInt8 {
    /// Whether `needle` occurs as a contiguous run.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    func contains(utf8 text: String) -> Bool {
        contains(bytes: Array(text.utf8))
    }

    /// Where `text`'s UTF-8 first starts, or nil.
    func offset(ofUTF8 text: String) -> Int? {
        let needle = Array(text.utf8)
        guard !needle.isEmpty, needle.count <= count else { return nil }
        return (0...(count - needle.count)).first { Array(self[$0..<($0 + needle.count)]) == needle }
    }

    /// Where `text`'s UTF-8 last starts, or nil.
    func lastOffset(ofUTF8 text: String) -> Int? {
        let needle = Array(text.utf8)
        guard !needle.isEmpty, needle.count <= count else { return nil }
        return (0...(count - needle.count)).last { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
