import FoundationEssentials

extension PropertyListValue {
    /// True when the two values are the same down to the bits: reals and dates by bit pattern,
    /// strings and keys by Unicode scalars (`==` calls `é` and `e\u{301}` equal, and 0.0 and
    /// -0.0). What a round trip through a writer and a reader must keep.
    package func isExactlyEqual(to other: PropertyListValue) -> Bool {
        switch (self, other) {
        case (.string(let a), .string(let b)): a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        case (.boolean(let a), .boolean(let b)): a == b
        case (.date(let a), .date(let b)): a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.data(let a), .data(let b)): a == b
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isExactlyEqual(to: $1) }
        case (.dictionary(let a), .dictionary(let b)):
            a.count == b.count && a.allSatisfy { key, value in
                // Keys must match by scalars too: find the entry whose key has the same scalars.
                guard let match = b.first(where: { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }) else { return false }
                return value.isExactlyEqual(to: match.value)
            }
        default: false
        }
    }
}
