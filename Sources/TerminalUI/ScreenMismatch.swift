/// Why a screen is not the one a test expected; its description shows both screens.
public enum ScreenMismatch: Error, Equatable, CustomStringConvertible {
    /// The screen has `actual.count` rows but `expected.count` were expected.
    case rowCountDiffers(expected: [String], actual: [String])
    /// These rows (0-based) differ; `expected` and `actual` are the whole screens.
    case rowsDiffer(rows: [Int], expected: [String], actual: [String])

    /// Compares whole screens row by row; nil when they are equal.
    public static func compare(actual: [String], expected: [String]) -> ScreenMismatch? {
        if actual.count != expected.count {
            return .rowCountDiffers(expected: expected, actual: actual)
        }
        let rows = actual.indices.filter { actual[$0] != expected[$0] }
        return rows.isEmpty ? nil : .rowsDiffer(rows: rows, expected: expected, actual: actual)
    }

    /// A readable report: the differing rows with a caret under the first
    /// differing column, then both screens framed so trailing spaces show.
    public var description: String {
        switch self {
        case let .rowCountDiffers(expected, actual):
            return "screen has \(actual.count) rows, expected \(expected.count)\n"
                + Self.framed("expected", expected) + Self.framed("actual", actual)
        case let .rowsDiffer(rows, expected, actual):
            var report = "screen differs in \(rows.count) of \(actual.count) rows\n"
            for row in rows {
                let (column, offset) = Self.firstDifference(expected[row], actual[row])
                report += "  row \(row) expected: \"\(expected[row])\"\n"
                report += "  row \(row) actual:   \"\(actual[row])\"\n"
                report += String(repeating: " ", count: 21 + offset) + "^ column \(column)\n"
            }
            return report + Self.framed("expected", expected) + Self.framed("actual", actual)
        }
    }

    /// The display column of the first differing character, and how many
    /// columns into the printed `actual` row it is.
    private static func firstDifference(_ expected: String, _ actual: String) -> (column: Int, offset: Int) {
        var column = 0
        for (a, b) in zip(expected, actual) {
            if a != b { break }
            column += max(a.terminalColumns, 1)
        }
        return (column, column)
    }

    private static func framed(_ title: String, _ lines: [String]) -> String {
        var text = "  \(title):\n"
        for (index, line) in lines.enumerated() {
            let number = String(index)
            text += String(repeating: " ", count: max(0, 4 - number.count)) + number + " │" + line + "│\n"
        }
        return text
    }
}
