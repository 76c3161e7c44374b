import Foundation
import Testing

/// Baton between two "hosts": real programs in tmux panes inside network-namespace labs.
///
/// Needs root, `ip netns`, tmux, and the built programs (`swift build`): each test skips,
/// saying why, when one is missing. One test at a time: each makes its own lab and tmux
/// server and removes them when it ends.
@Suite("Baton end to end (netlab + tmux)", .serialized, .ownThread, .timeLimit(.minutes(2)))
struct EndToEndTests {
    /// The counter shows `count`: in big block digits (5 rows of `█`, the app's 3×5 font with
    /// pixels two cells wide), or, in a small window, as a row holding only the number.
    static func screen(_ lines: [String], showsCount count: Int) -> Bool {
        let text = String(count)
        let content = lines.dropLast()  // the status bar
        if content.contains(where: { $0.trimmingCharacters(in: .whitespaces) == text }) { return true }
        let glyphRows = blockRows(text).map { String($0.reversed().drop { $0 == " " }.reversed()) }
        let rows = Array(content)
        guard rows.count >= glyphRows.count else { return false }
        for top in 0...(rows.count - glyphRows.count) {
            guard let start = rows[top].range(of: glyphRows[0]) else { continue }
            let column = rows[top].distance(from: rows[top].startIndex, to: start.lowerBound)
            let matches = glyphRows.indices.allSatisfy { index in
                let row = Array(rows[top + index])
                let want = Array(glyphRows[index])
                guard row.count >= column + want.count, Array(row[column..<(column + want.count)]) == want else { return false }
                return row[(column + want.count)...].allSatisfy { $0 == " " }
                    && row[..<column].allSatisfy { $0 == " " }
            }
            if matches { return true }
        }
        return false
    }

    /// `text` in the counter's block font: 5 rows, each `#` pixel drawn `██`, glyphs 2 apart.
    static func blockRows(_ text: String) -> [String] {
        let font: [Character: [String]] = [
            "0": ["###", "# #", "# #", "# #", "###"], "1": [" # ", "## ", " # ", " # ", "###"],
            "2": ["###", "  #", "###", "#  ", "###"], "3": ["###", "  #", "###", "  #", "###"],
            "4": ["# #", "# #", "###", "  #", "  #"], "5": ["###", "#  ", "###", "  #", "###"],
            "6": ["###", "#  ", "###", "# #", "###"], "7": ["###", "  #", "  #", "  #", "  #"],
            "8": ["###", "# #", "###", "# #", "###"], "9": ["###", "# #", "###", "  #", "###"],
            "-": ["   ", "   ", "###", "   ", "   "],
        ]
        return (0..<5).map { row in
            text.map { character in
                (font[character]?[row] ?? "???").map { $0 == "#" ? "██" : "  " }.joined()
            }.joined(separator: "  ")
        }
    }

    /// Checks the pane's terminal is as a shell wants it after the program ended: line editing
    /// and echo on, every mode as before the program, main screen, cursor shown, keypad normal.
    static func expectSaneTerminal(_ session: TmuxSession, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let after = try session.modesAfter()
        for mode in ["icanon", "echo", "isig", "icrnl", "opost", "onlcr"] {
            #expect(after.isOn(mode), "\(mode) is not on after \(session.name)'s program:\n\(after)", sourceLocation: sourceLocation)
        }
        let settings = try session.settings()
        #expect(settings.after == settings.before, "stty -g differs after \(session.name)'s program", sourceLocation: sourceLocation)
        let state = try session.query("#{alternate_on} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag}")
        #expect(state == "0 1 0 0",
            "alternate screen, cursor shown, keypad cursor and keypad modes of \(session.name) are \(state), want 0 1 0 0",
            sourceLocation: sourceLocation)
    }
}
