/// The bytes of which every non-empty match of an extended regular expression holds at least
/// one, read from the expression's text: a line that holds none of them has no match, and is
/// not given to `regexec`. Colouring a line runs every rule of its syntax over it, and most
/// rules cannot match most lines: a string's needs a `"`, a comment's a `/`, a preprocessor
/// line's a `#`, a keyword list's one of its words' first letters.
///
/// For expressions compiled in the C locale (`TextPattern`'s `byteWise`), where a character is
/// a byte. The reading is cautious: anything it does not follow (a backreference, an
/// equivalence class, an escape it does not know) gives nil, and the expression is matched
/// against every line as before.
enum NeededBytes {
    static func of(_ expression: String, ignoresCase: Bool) -> ByteSet? {
        var reader = Reader(bytes: Array(expression.utf8))
        guard let need = try? reader.alternation(), reader.index == reader.bytes.count else { return nil }
        return ignoresCase ? need.withBothCases : need
    }

    /// Something this reader does not follow.
    private struct Unknown: Error {}

    /// A recursive-descent reader of the expression. Each part answers the bytes one of which
    /// any match of it holds, or nil when a match of it may be empty (or hold anything).
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var next: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func take() throws(Unknown) -> UInt8 {
            guard let byte = next else { throw Unknown() }
            index += 1
            return byte
        }

        /// Alternatives: each must need something, and any of their needs will do.
        mutating func alternation() throws(Unknown) -> ByteSet? {
            var union = try concatenation()
            while next == UInt8(ascii: "|") {
                index += 1
                let other = try concatenation()
                union = union.flatMap { first in other.map { first.union($0) } }
            }
            return union
        }

        /// Pieces in a row: the need of the piece whose bytes are rarest in text.
        mutating func concatenation() throws(Unknown) -> ByteSet? {
            var best: ByteSet?
            while let byte = next, byte != UInt8(ascii: "|"), byte != UInt8(ascii: ")") {
                guard let need = try piece() else { continue }
                if best.map({ Self.commonness(need) < Self.commonness($0) }) ?? true { best = need }
            }
            return best
        }

        /// An atom and its repeats: one that may be repeated no times needs nothing.
        mutating func piece() throws(Unknown) -> ByteSet? {
            let (atomNeed, zeroWidth) = try atom()
            var need = atomNeed
            while let byte = next {
                switch byte {
                case UInt8(ascii: "*"), UInt8(ascii: "?"):
                    index += 1
                    need = nil
                case UInt8(ascii: "+"):
                    index += 1
                case UInt8(ascii: "{"):
                    index += 1
                    if try interval() == 0 { need = nil }
                default:
                    return need
                }
                if zeroWidth { throw Unknown() }
            }
            return need
        }

        /// `{m}`, `{m,}` or `{m,n}` after its `{`: the least count, m.
        mutating func interval() throws(Unknown) -> Int {
            var least = 0
            var digits = 0
            while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                least = least * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                index += 1
                if digits > 4 { throw Unknown() }
            }
            guard digits > 0 else { throw Unknown() }
            while true {
                let byte = try take()
                if byte == UInt8(ascii: "}") { return least }
                guard byte == UInt8(ascii: ",") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { throw Unknown() }
            }
        }

        /// One atom: its need, and whether it matches no byte at all (an anchor).
        mutating func atom() throws(Unknown) -> (ByteSet?, zeroWidth: Bool) {
            let byte = try take()
            switch byte {
            case UInt8(ascii: "("):
                if next == UInt8(ascii: ")") {
                    index += 1
                    return (nil, false)
                }
                let need = try alternation()
                guard try take() == UInt8(ascii: ")") else { throw Unknown() }
                return (need, false)
            case UInt8(ascii: "["):
                return (try bracket(), false)
            case UInt8(ascii: "."):
                return (.all, false)
            case UInt8(ascii: "^"), UInt8(ascii: "$"):
                return (nil, true)
            case UInt8(ascii: "\\"):
                return try escape()
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"), UInt8(ascii: ")"):
                throw Unknown()
            default:
                return (ByteSet([byte]), false)
            }
        }

        mutating func escape() throws(Unknown) -> (ByteSet?, zeroWidth: Bool) {
            let byte = try take()
            switch byte {
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "`"), UInt8(ascii: "'"):
                return (nil, true)
            case UInt8(ascii: "w"): return (Self.word, false)
            case UInt8(ascii: "W"): return (Self.word.complement, false)
            case UInt8(ascii: "s"): return (Self.space, false)
            case UInt8(ascii: "S"): return (Self.space.complement, false)
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                // A backreference, or an escape whose meaning this reader does not know.
                throw Unknown()
            default:
                return (ByteSet([byte]), false)
            }
        }

        /// A bracket expression after its `[`: the bytes it takes.
        mutating func bracket() throws(Unknown) -> ByteSet {
            var set = ByteSet()
            let negated = next == UInt8(ascii: "^")
            if negated { index += 1 }
            var first = true
            while true {
                let byte = try take()
                if byte == UInt8(ascii: "]"), !first { break }
                first = false
                if byte == UInt8(ascii: "["), let kind = next,
                   kind == UInt8(ascii: ":") || kind == UInt8(ascii: "=") || kind == UInt8(ascii: ".") {
                    guard kind == UInt8(ascii: ":") else { throw Unknown() }
                    set = set.union(try characterClass())
                    continue
                }
                if next == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "]") {
                    index += 1
                    let last = try take()
                    guard last >= byte, last != UInt8(ascii: "[") else { throw Unknown() }
                    set = set.union(ByteSet(byte...last))
                } else {
                    set.insert(byte)
                }
            }
            // Case is added to the whole need at the end (`of`), never before a complement.
            return negated ? set.complement : set
        }

        /// `[:name:]` after its `[`, in the C locale.
        mutating func characterClass() throws(Unknown) -> ByteSet {
            index += 1
            var name: [UInt8] = []
            while let byte = next, byte != UInt8(ascii: ":") {
                name.append(byte)
                index += 1
                if name.count > 8 { throw Unknown() }
            }
            guard try take() == UInt8(ascii: ":"), try take() == UInt8(ascii: "]") else { throw Unknown() }
            let upper = ByteSet(UInt8(ascii: "A")...UInt8(ascii: "Z"))
            let lower = ByteSet(UInt8(ascii: "a")...UInt8(ascii: "z"))
            let digit = ByteSet(UInt8(ascii: "0")...UInt8(ascii: "9"))
            let graph = ByteSet(UInt8(0x21)...UInt8(0x7E))
            switch String(decoding: name, as: UTF8.self) {
            case "alpha": return upper.union(lower)
            case "digit": return digit
            case "alnum": return upper.union(lower).union(digit)
            case "upper": return upper
            case "lower": return lower
            case "space": return Self.space
            case "blank": return ByteSet([0x20, 0x09])
            case "punct": return ByteSet(graph.members.filter { !upper.union(lower).union(digit).contains($0) })
            case "print": return graph.union(ByteSet([0x20]))
            case "graph": return graph
            case "cntrl": return ByteSet(UInt8(0)...UInt8(0x1F)).union(ByteSet([0x7F]))
            case "xdigit": return digit.union(ByteSet(Array("abcdefABCDEF".utf8)))
            default: throw Unknown()
            }
        }

        static let word = ByteSet(Array("_0123456789".utf8)).union(ByteSet(UInt8(ascii: "A")...UInt8(ascii: "Z")))
            .union(ByteSet(UInt8(ascii: "a")...UInt8(ascii: "z")))
        static let space = ByteSet([0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D])

        /// How often a set's bytes come up in text, roughly: spaces and lower case letters
        /// most, then capitals and digits, punctuation least.
        static func commonness(_ set: ByteSet) -> Int {
            set.members.reduce(0) { total, byte in
                switch byte {
                case 0x20, 0x09: total + 30
                case UInt8(ascii: "a")...UInt8(ascii: "z"): total + 10
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): total + 4
                default: total + 1
                }
            }
        }
    }
}
