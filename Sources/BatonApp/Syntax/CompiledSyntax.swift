#if canImport(Glibc)
import Glibc
#endif
import TerminalUI

/// A syntax ready to colour lines: its expressions compiled with the C library's `regcomp`
/// (extended, as nano compiles them). A rule whose expression does not compile is left out.
/// Immutable once made; `regexec` may be called from any thread.
final class CompiledSyntax: @unchecked Sendable {
    enum Rule {
        case pattern(TextPattern, Style)
        case region(start: TextPattern, end: TextPattern, Style)
    }

    let name: String
    let rules: [Rule]

    /// A run of characters of a line and how it is drawn.
    struct Span: Equatable {
        var characters: Range<Int>
        var style: Style
    }

    /// A line's colours: spans in rule order (a later one paints over an earlier one), and the
    /// region left open at its end (the index of its rule), which the next line starts in.
    struct LineColours: Equatable {
        var spans: [Span]
        var openRegion: Int?
    }

    init(_ definition: SyntaxDefinition) {
        name = definition.name
        rules = definition.rules.compactMap { rule in
            let options = SearchOptions(caseSensitive: !rule.ignoresCase, regularExpression: true)
            switch rule.match {
            case .pattern(let expression):
                guard let pattern = try? TextPattern(expression, options: options, byteWise: true) else { return nil }
                return .pattern(pattern, rule.style)
            case .region(let start, let end):
                guard let start = try? TextPattern(start, options: options, byteWise: true),
                      let end = try? TextPattern(end, options: options, byteWise: true) else { return nil }
                return .region(start: start, end: end, rule.style)
            }
        }
    }

    /// Colours `line`, which starts inside the region of rule `openRegion` (nil: none).
    func colours(of line: String, startingIn openRegion: Int?) -> LineColours {
        var prepared = TextPattern.PreparedLine(line)
        let count = prepared.characterCount
        var groups = [regmatch_t](repeating: regmatch_t(), count: 1)
        func first(_ pattern: TextPattern, from column: Int) -> Range<Int>? {
            Self.firstMatch(pattern, in: &prepared, from: column, groups: &groups)
        }
        var spans: [Span] = []
        var leftOpen: Int?
        for (index, rule) in rules.enumerated() {
            switch rule {
            case .pattern(let pattern, let style):
                var column = 0
                while column <= count, let match = first(pattern, from: column) {
                    spans.append(Span(characters: match, style: style))
                    column = match.upperBound
                }
            case .region(let start, let end, let style):
                var column = 0
                if openRegion == index {
                    // Inside the region from the line's start: it goes on to its end, or past this line.
                    guard let closing = first(end, from: 0) else {
                        spans.append(Span(characters: 0..<count, style: style))
                        leftOpen = index
                        continue
                    }
                    spans.append(Span(characters: 0..<closing.upperBound, style: style))
                    column = closing.upperBound
                }
                while column <= count, let opening = first(start, from: column) {
                    guard let closing = first(end, from: opening.upperBound) else {
                        spans.append(Span(characters: opening.lowerBound..<count, style: style))
                        leftOpen = index
                        break
                    }
                    spans.append(Span(characters: opening.lowerBound..<closing.upperBound, style: style))
                    column = max(closing.upperBound, opening.upperBound)
                }
            }
        }
        return LineColours(spans: spans, openRegion: leftOpen)
    }

    /// `pattern`'s first non-empty match at character `column` or later, in characters. Only
    /// the whole match is asked of `regexec` (`groups` holds one place): asked for its groups
    /// too, it keeps a log of its states to work out where each one matched, which cost a
    /// coloured key more than finding the matches did.
    private static func firstMatch(
        _ pattern: TextPattern, in line: inout TextPattern.PreparedLine, from column: Int, groups: inout [regmatch_t]
    ) -> Range<Int>? {
        guard let byte = line.byte(ofCharacter: column),
              let (found, _) = pattern.firstByteMatch(in: &line, fromByte: byte, groups: &groups)
        else { return nil }
        return line.character(atByte: found.lowerBound)..<line.character(atByte: found.upperBound)
    }

    /// The region left open at the end of `line` when it starts in `openRegion`: what
    /// `colours(of:startingIn:)` gives as `openRegion`, from the region rules alone (the
    /// others never open one), for walking down to the lines on screen.
    func openRegion(after line: String, startingIn openRegion: Int?) -> Int? {
        // In bytes throughout: no line on the way down is segmented into characters.
        var prepared = TextPattern.PreparedLine(line)
        let length = prepared.byteCount
        var groups = [regmatch_t](repeating: regmatch_t(), count: 1)
        var leftOpen: Int?
        for (index, rule) in rules.enumerated() {
            guard case .region(let start, let end, _) = rule else { continue }
            var byte = 0
            if openRegion == index {
                guard let closing = end.firstByteMatch(in: &prepared, fromByte: 0, groups: &groups) else {
                    leftOpen = index
                    continue
                }
                byte = closing.range.upperBound
            }
            while byte <= length, let opening = start.firstByteMatch(in: &prepared, fromByte: byte, groups: &groups) {
                guard let closing = end.firstByteMatch(in: &prepared, fromByte: opening.range.upperBound, groups: &groups)
                else {
                    leftOpen = index
                    break
                }
                byte = max(closing.range.upperBound, opening.range.upperBound)
            }
        }
        return leftOpen
    }

    /// Whether any rule spans lines (then a line's colours depend on the lines above it).
    var hasRegions: Bool {
        rules.contains { if case .region = $0 { true } else { false } }
    }
}
