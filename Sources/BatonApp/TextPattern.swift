#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a search matches, as nano's search prompt toggles it.
public struct SearchOptions: Equatable, Sendable {
    /// Upper and lower case differ (Alt-C); off by default, as in nano.
    public var caseSensitive = false
    /// The query is a POSIX extended regular expression (Alt-R), as nano's and `grep -E`'s.
    public var regularExpression = false

    public init(caseSensitive: Bool = false, regularExpression: Bool = false) {
        self.caseSensitive = caseSensitive
        self.regularExpression = regularExpression
    }

    /// "[Case Sensitive] [Regexp]" for the prompt's label, or "" with neither on.
    var labelText: String {
        (caseSensitive ? " [Case Sensitive]" : "") + (regularExpression ? " [Regexp]" : "")
    }
}

/// One match in a line: its characters, and for a regular expression the text of its groups
/// (`\1` … `\9` in a replacement).
struct PatternMatch: Equatable {
    /// The matched characters of the line (counted as `TextPosition.column` counts them).
    var columns: Range<Int>
    /// Group 1 to 9's text; nil for a group that took no part.
    var groups: [String?]
}

/// A compiled search: the C library's POSIX regular expressions (`regcomp`), as nano uses them,
/// so that what nano users type finds the same text. A query that is not a regular
/// expression is escaped into one that matches it literally. Matches are within a line.
final class TextPattern {
    private var regex = regex_t()
    /// Whether the query is a regular expression, so that `\1` in a replacement names a group.
    let isRegularExpression: Bool

    /// Why a query cannot be searched for: the C library's description of a bad expression.
    struct Problem: Error, Equatable {
        var description: String
    }

    /// Compiles `query` with `options`.
    init(_ query: String, options: SearchOptions) throws(Problem) {
        isRegularExpression = options.regularExpression
        let expression = options.regularExpression ? query : Self.escaped(query)
        var flags = REG_EXTENDED
        if !options.caseSensitive { flags |= REG_ICASE }
        let status = expression.withCString { regcomp(&regex, $0, flags) }
        guard status == 0 else {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, &regex, &message, message.count)
            regfree(&regex)
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw Problem(description: "not a regular expression: \(text)")
        }
    }

    deinit { regfree(&regex) }

    /// `text` with every character that means something in an extended expression escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\.[]()*+?{}|^$".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// The first match in `line` that starts at character `column` or later, skipping empty
    /// matches (`x*` matches nothing everywhere; nano moves on too).
    func firstMatch(in line: String, from column: Int = 0) -> PatternMatch? {
        var prepared = PreparedLine(line)
        return firstMatch(in: &prepared, from: column)
    }

    /// Every match in `line`, left to right, none overlapping.
    func matches(in line: String) -> [Range<Int>] {
        var prepared = PreparedLine(line)
        var result: [Range<Int>] = []
        var column = 0
        while let match = firstMatch(in: &prepared, from: column) {
            result.append(match.columns)
            column = match.columns.upperBound
        }
        return result
    }

    /// A line as `regexec` reads it: its bytes NUL-terminated, and where each character starts.
    struct PreparedLine {
        var bytes: [CChar]
        /// The byte offset of each character, and the line's length last.
        var starts: [Int]

        init(_ line: String) {
            bytes = []
            bytes.reserveCapacity(line.utf8.count + 1)
            starts = []
            var offset = 0
            for character in line {
                starts.append(offset)
                for byte in character.utf8 { bytes.append(CChar(bitPattern: byte)) }
                offset += character.utf8.count
            }
            starts.append(offset)
            bytes.append(0)
        }

        /// The first character starting at or after `byte` (a match starts on a boundary unless
        /// the expression split a character, which then counts from the next).
        func character(atByte byte: Int) -> Int {
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] < byte { low = middle + 1 } else { high = middle }
            }
            return low
        }

        func text(_ bytes: Range<Int>) -> String {
            String(decoding: self.bytes[bytes].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    func firstMatch(in line: inout PreparedLine, from column: Int) -> PatternMatch? {
        guard column < line.starts.count else { return nil }
        let length = line.starts[line.starts.count - 1]
        var byte = line.starts[column]
        var groups = [regmatch_t](repeating: regmatch_t(), count: 10)
        while byte <= length {
            let flags: Int32 = byte > 0 ? REG_NOTBOL : 0
            let found = line.bytes.withUnsafeBufferPointer { text in
                regexec(&regex, text.baseAddress! + byte, groups.count, &groups, flags)
            }
            guard found == 0 else { return nil }
            let start = byte + Int(groups[0].rm_so)
            let end = byte + Int(groups[0].rm_eo)
            if end > start {
                let captured: [String?] = (1..<groups.count).map { index in
                    let group = groups[index]
                    guard group.rm_so >= 0 else { return nil }
                    return line.text((byte + Int(group.rm_so))..<(byte + Int(group.rm_eo)))
                }
                return PatternMatch(
                    columns: line.character(atByte: start)..<line.character(atByte: end), groups: captured)
            }
            // An empty match: look again from the next character.
            let next = line.character(atByte: start + 1)
            guard next < line.starts.count, line.starts[next] > byte else { return nil }
            byte = line.starts[next]
        }
        return nil
    }

    /// What replaces `match`: `replacement` as typed, or for a regular expression with `\1` …
    /// `\9` standing for the groups' text (and `\\` for a backslash).
    func replacement(_ replacement: String, for match: PatternMatch) -> String {
        guard isRegularExpression, replacement.contains("\\") else { return replacement }
        var result = ""
        var escaping = false
        for character in replacement {
            if escaping {
                escaping = false
                if let digit = character.wholeNumberValue, (1...9).contains(digit), character.isASCII {
                    result += match.groups[digit - 1] ?? ""
                    continue
                }
                if character != "\\" { result.append("\\") }
                result.append(character)
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        if escaping { result.append("\\") }
        return result
    }
}
