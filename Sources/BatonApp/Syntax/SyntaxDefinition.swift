import TerminalUI

/// One syntax as a nanorc file defines it (`syntax NAME "fileregex"…` and the `color` lines
/// after it), with its expressions as written: compiled only when a file needs it.
public struct SyntaxDefinition: Equatable, Sendable {
    /// What colours one kind of text.
    public struct Rule: Equatable, Sendable {
        /// Text matched on one line, or a region from a match of `start` to one of `end`, which
        /// may span lines (nano's `start="…" end="…"`).
        public enum Match: Equatable, Sendable {
            case pattern(String)
            case region(start: String, end: String)
        }

        public var match: Match
        public var style: Style
        /// `icolor`: upper and lower case match alike.
        public var ignoresCase: Bool
    }

    public var name: String
    /// Expressions one of which a file's name matches for this syntax to apply.
    public var fileExpressions: [String]
    /// Expressions one of which a file's first line matches (`header`).
    public var headerExpressions: [String]
    /// In order: a later rule paints over an earlier one, as in nano.
    public var rules: [Rule]
    /// Where it was read: a file's path, or "built in".
    public var source: String
}

/// Reads nanorc text: the `syntax`, `header`, `color` and `icolor` lines; the other commands
/// (`magic`, `comment`, `linter`, `formatter`, `tabgives`, options) are left alone, and a line
/// that does not parse is skipped, as nano skips it with a warning.
enum NanorcParser {
    static func definitions(in text: String, source: String) -> [SyntaxDefinition] {
        var result: [SyntaxDefinition] = []
        var current: SyntaxDefinition?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            guard !line.isEmpty, line.first != "#" else { continue }
            let (command, rest) = splitWord(Substring(line))
            switch command {
            case "syntax":
                if let current { result.append(current) }
                let (name, expressions) = splitWord(rest)
                let unquoted = name.hasPrefix("\"") && name.hasSuffix("\"") && name.count >= 2
                    ? String(name.dropFirst().dropLast()) : String(name)
                current = SyntaxDefinition(
                    name: unquoted, fileExpressions: quotedStrings(expressions), headerExpressions: [], rules: [],
                    source: source)
            case "header":
                current?.headerExpressions += quotedStrings(rest)
            case "color", "icolor":
                guard current != nil else { continue }
                let (colour, patterns) = splitWord(rest)
                guard let style = style(named: String(colour)) else { continue }
                current?.rules += rules(patterns, style: style, ignoresCase: command == "icolor")
            default:
                continue
            }
        }
        if let current { result.append(current) }
        return result.filter { !$0.rules.isEmpty || !$0.fileExpressions.isEmpty }
    }

    /// The first word of `text` and what follows it (leading blanks dropped).
    static func splitWord(_ text: Substring) -> (Substring, Substring) {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        let end = trimmed.firstIndex { $0 == " " || $0 == "\t" } ?? trimmed.endIndex
        return (trimmed[..<end], trimmed[end...].drop { $0 == " " || $0 == "\t" })
    }

    /// The quoted strings in `text`. As in nano, a string ends at a `"` followed by a blank or
    /// the end of the line, so a `"` inside an expression needs no escape.
    static func quotedStrings(_ text: Substring) -> [String] {
        var strings: [String] = []
        var rest = text.drop { $0 == " " || $0 == "\t" }
        while let (string, after) = quotedString(rest) {
            strings.append(string)
            rest = after.drop { $0 == " " || $0 == "\t" }
        }
        return strings
    }

    /// One quoted string at the start of `text`, and what follows it.
    static func quotedString(_ text: Substring) -> (String, Substring)? {
        guard text.first == "\"" else { return nil }
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            if text[index] == "\"" {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " || text[next] == "\t" {
                    return (String(text[text.index(after: text.startIndex)..<index]), text[next...])
                }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The rules of one `color` line: each quoted expression, or a `start="…" end="…"` pair.
    static func rules(_ text: Substring, style: Style, ignoresCase: Bool) -> [SyntaxDefinition.Rule] {
        var rules: [SyntaxDefinition.Rule] = []
        var rest = text
        while !rest.isEmpty {
            if rest.hasPrefix("start=") {
                guard let (start, afterStart) = quotedString(rest.dropFirst(6)) else { break }
                let trimmed = afterStart.drop { $0 == " " || $0 == "\t" }
                guard trimmed.hasPrefix("end="), let (end, afterEnd) = quotedString(trimmed.dropFirst(4)) else { break }
                rules.append(.init(match: .region(start: start, end: end), style: style, ignoresCase: ignoresCase))
                rest = afterEnd.drop { $0 == " " || $0 == "\t" }
            } else if let (pattern, after) = quotedString(rest) {
                rules.append(.init(match: .pattern(pattern), style: style, ignoresCase: ignoresCase))
                rest = after.drop { $0 == " " || $0 == "\t" }
            } else {
                break
            }
        }
        return rules
    }

    /// The style a nanorc colour names: `[bold,][italic,][bright|light]FOREGROUND[,BACKGROUND]`.
    /// The eight terminal colours are kept; nano's other names go to the nearest of them; a
    /// background is not drawn (Baton's cells have none), so `,green` alone draws nothing.
    static func style(named spec: String) -> Style? {
        var parts = spec.lowercased().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var style = Style()
        while let first = parts.first, first == "bold" || first == "italic" {
            if first == "bold" { style.bold = true }
            parts.removeFirst()
        }
        guard var foreground = parts.first else { return style }
        if foreground.hasPrefix("bright") {
            style.bold = true
            foreground.removeFirst(6)
        } else if foreground.hasPrefix("light") {
            style.bold = true
            foreground.removeFirst(5)
        }
        if foreground.isEmpty || foreground == "normal" { return style }
        guard let colour = colours[foreground] else { return nil }
        style.foreground = colour
        return style
    }

    /// nano's colour names (7.x) and the terminal colour each is drawn in.
    static let colours: [String: TerminalColor] = [
        "black": .black, "red": .red, "green": .green, "yellow": .yellow, "blue": .blue, "magenta": .magenta,
        "cyan": .cyan, "white": .white, "grey": .white, "gray": .white, "pink": .magenta, "purple": .magenta,
        "mauve": .magenta, "lagoon": .cyan, "mint": .green, "lime": .green, "peach": .red, "orange": .yellow,
        "latte": .yellow, "rosy": .red, "beet": .red, "plum": .magenta, "sea": .blue, "sky": .cyan, "slate": .blue,
        "teal": .cyan, "sage": .green, "brown": .yellow, "ocher": .yellow, "sand": .yellow, "tawny": .yellow,
        "brick": .red, "crimson": .red, "normal": .white,
    ]
}
