import TerminalUI

/// How wide text is on a terminal, as the editor draws it.
extension TextBuffer {
    /// Columns a run of characters takes on a terminal when it starts at column 0
    /// (tabs reach the next tab stop; control characters take the width of their visible picture).
    public static func displayWidth(_ characters: some Sequence<Character>) -> Int {
        characters.reduce(0) { advance(from: $0, over: $1) }
    }

    /// The display column after `character` when it starts at display column `column`.
    public static func advance(from column: Int, over character: Character) -> Int {
        if character == "\t" { return (column / tabWidth + 1) * tabWidth }
        return column + columns(of: character)
    }

    /// Columns `character` takes as `ScreenBuffer` draws it: control and bidi characters are
    /// drawn as visible pictures, so they take the width of the picture.
    public static func columns(of character: Character) -> Int {
        if character.unicodeScalars.contains(where: TerminalSanitizer.isUnsafe) {
            return String(character).terminalColumns
        }
        return character.terminalColumns
    }

    /// The character index whose start is at or just before `displayColumn`.
    public static func column(in line: [Character], atDisplayColumn goal: Int) -> Int {
        var width = 0
        for (index, character) in line.enumerated() {
            let next = advance(from: width, over: character)
            if next > goal { return index }
            width = next
        }
        return line.count
    }
}
