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
    /// For a query that is not a regular expression: its bytes, looked for directly (ASCII
    /// lower case when case is ignored), which is several times quicker than `regexec` with
    /// `REG_ICASE` in a UTF-8 locale. nil: the expression is matched with `regexec`.
    private let literal: (bytes: [UInt8], ignoresCase: Bool)?
    /// The fewest bytes a match takes (a literal's length; 1 for an expression).
    var minimumMatch: Int { literal?.bytes.count ?? 1 }
    /// `literal`, for a caller that searches bytes of its own.
    var literalBytes: (bytes: [UInt8], ignoresCase: Bool)? { literal }
    /// Whether the query is a regular expression, so that `\1` in a replacement names a group.
    let isRegularExpression: Bool
    /// For an expression matched byte by byte: bytes one of which every match holds
    /// (`NeededBytes`); a line with none is not given to `regexec`.
    let needed: ByteSet?

    /// Why a query cannot be searched for: the C library's description of a bad expression.
    struct Problem: Error, Equatable {
        var description: String
    }

    /// The C locale, for expressions matched byte by byte.
    /// Made once and never freed or changed, so it may be used from any thread.
    nonisolated(unsafe) private static let byteLocale = newlocale(LC_CTYPE_MASK, "C", nil)

    /// Compiles `query` with `options`. `byteWise`: in the C locale, so that `regexec` reads
    /// bytes rather than turning every line into wide characters first (several times quicker;
    /// what colours code does, where a class such as `[[:alpha:]]` then takes ASCII only).
    /// `screensLines`: false only in tests, which compare the matches found with and without
    /// `needed`.
    init(_ query: String, options: SearchOptions, byteWise: Bool = false, screensLines: Bool = true) throws(Problem) {
        isRegularExpression = options.regularExpression
        if !options.regularExpression, !query.isEmpty, options.caseSensitive || query.utf8.allSatisfy({ $0 < 0x80 }) {
            literal = (options.caseSensitive ? Array(query.utf8) : query.utf8.map(Self.lowercased), !options.caseSensitive)
        } else {
            literal = nil
        }
        let expression = options.regularExpression ? query : Self.escaped(query)
        needed = byteWise && options.regularExpression && screensLines
            ? NeededBytes.of(query, ignoresCase: !options.caseSensitive) : nil
        var flags = REG_EXTENDED
        if !options.caseSensitive { flags |= REG_ICASE }
        let previous = byteWise ? Self.byteLocale.map { uselocale($0) } : nil
        let status = expression.withCString { regcomp(&regex, $0, flags) }
        if let previous { uselocale(previous) }
        guard status == 0 else {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, &regex, &message, message.count)
            regfree(&regex)
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw Problem(description: "not a regular expression: \(text)")
        }
    }

    deinit { regfree(&regex) }

    static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// The first place at or after byte `from` where `needle` is, in `bytes` (`count` of them).
    static func find(
        _ needle: [UInt8], ignoresCase: Bool, in bytes: UnsafeBufferPointer<UInt8>, count: Int, from: Int
    ) -> Int? {
        let length = needle.count
        guard length > 0, count - from >= length else { return nil }
        return needle.withUnsafeBufferPointer { needle -> Int? in
            let first = needle[0]
            var index = from
            let last = count - length
            while index <= last {
                let byte = ignoresCase ? lowercased(bytes[index]) : bytes[index]
                if byte == first {
                    var matched = 1
                    while matched < length {
                        let other = ignoresCase ? lowercased(bytes[index + matched]) : bytes[index + matched]
                        if other != needle[matched] { break }
                        matched += 1
                    }
                    if matched == length { return index }
                }
                index += 1
            }
            return nil
        }
    }

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

    /// The first match at byte `from` or later, in bytes, skipping empty matches (then the
    /// search goes on from the next byte that starts a character); nil when there is none.
    /// `groups` are left as `regexec` gave them, relative to `base`.
    func firstByteMatch(
        in line: inout PreparedLine, fromByte from: Int, groups: inout [regmatch_t]
    ) -> (range: Range<Int>, base: Int)? {
        var byte = from
        let length = line.byteCount
        if let literal {
            let found = line.bytes.withUnsafeBufferPointer {
                Self.find(literal.bytes, ignoresCase: literal.ignoresCase, in: $0, count: length, from: from)
            }
            guard let found else { return nil }
            for index in groups.indices { groups[index] = regmatch_t(rm_so: -1, rm_eo: -1) }
            groups[0] = regmatch_t(rm_so: regoff_t(found - from), rm_eo: regoff_t(found - from + literal.bytes.count))
            return (found..<(found + literal.bytes.count), from)
        }
        if let needed, !line.holdsAny(of: needed) { return nil }
        while byte <= length {
            let flags: Int32 = byte > 0 ? REG_NOTBOL : 0
            let found = line.bytes.withUnsafeBufferPointer { text in
                text.baseAddress!.withMemoryRebound(to: CChar.self, capacity: text.count) {
                    regexec(&regex, $0 + byte, groups.count, &groups, flags)
                }
            }
            guard found == 0 else { return nil }
            let start = byte + Int(groups[0].rm_so)
            let end = byte + Int(groups[0].rm_eo)
            if end > start { return (start..<end, byte) }
            // An empty match: look again from the next character.
            var next = start + 1
            while next < length, line.bytes[next] & 0xC0 == 0x80 { next += 1 }
            guard next <= length, next > byte else { return nil }
            byte = next
        }
        return nil
    }

    func firstMatch(in line: inout PreparedLine, from column: Int) -> PatternMatch? {
        guard let byte = line.byte(ofCharacter: column) else { return nil }
        var groups = [regmatch_t](repeating: regmatch_t(), count: 10)
        guard let (found, base) = firstByteMatch(in: &line, fromByte: byte, groups: &groups) else { return nil }
        let captured: [String?] = (1..<groups.count).map { index in
            let group = groups[index]
            guard group.rm_so >= 0 else { return nil }
            return line.text((base + Int(group.rm_so))..<(base + Int(group.rm_eo)))
        }
        return PatternMatch(
            columns: line.character(atByte: found.lowerBound)..<line.character(atByte: found.upperBound), groups: captured)
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
