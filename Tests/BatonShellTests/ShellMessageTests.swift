@testable import BatonShell
import PropertyList
import Testing

@Suite("Shell messages (docs/PROTOCOL.md section 20)")
struct ShellMessageTests {
    static func screen() -> ShellScreen {
        var screen = ShellScreen(rows: 3, columns: 6)
        let red = ShellStyle(foreground: .indexed(1), attributes: [.bold])
        let wide = ShellStyle(background: .rgb(1, 2, 3))
        screen.setRow(0, "$ ls ".map { ShellCell(String($0)) } + [ShellCell("x", style: red)])
        screen.setRow(1, [ShellCell("中", width: 2, style: wide), .continuation(wide), ShellCell("🇫"), ShellCell("🇷"), ShellCell("e\u{301}"), .blank])
        screen.cursorRow = 2
        screen.cursorColumn = 4
        screen.title = "vim notes.txt"
        screen.mouse = .drag
        return screen
    }

    /// A screen of `rows` × `columns` cells drawn from `graphemes` (中 takes two columns) in
    /// `round % 40 + 1` styles (past the list's switch to a table), with a title on odd rounds.
    static func randomScreen(
        round: Int, rows: Int, columns: Int, graphemes: [String], using generator: inout some RandomNumberGenerator
    ) -> ShellScreen {
        let styles = (0..<(round % 40 + 1)).map { ShellStyle(foreground: .indexed(UInt8($0)), attributes: $0 % 3 == 0 ? [.bold] : []) }
        var screen = ShellScreen(rows: rows, columns: columns)
        for row in 0..<rows {
            var cells: [ShellCell] = []
            while cells.count < columns {
                let grapheme = graphemes.randomElement(using: &generator)!
                let style = styles.randomElement(using: &generator)!
                if grapheme == "中", cells.count < columns - 1 {
                    cells += [ShellCell(grapheme, width: 2, style: style), .continuation(style)]
                } else if grapheme != "中" {
                    cells.append(ShellCell(grapheme, style: style))
                }
            }
            screen.setRow(row, cells)
        }
        screen.title = round % 2 == 0 ? "" : "vim ✓ \(round)"
        return screen
    }

    static let messages: [ShellMessage] = [
            .hello(role: .drive, peerName: "bob@desk", rows: 24, columns: 80),
            .input(.text("ls", modifiers: [])), .input(.text("c", modifiers: .control)),
            .input(.key(.function(5), modifiers: [.shift, .alt])), .input(.key(.up, modifiers: [])),
            .input(.paste("a\nb\u{1b}[201~")), .input(.mouse(row: 3, column: 9, button: 4, pressed: true, modifiers: [])),
            .resize(rows: 60, columns: 200), .take, .answer(allow: false), .shown(revision: 7),
            .role(drives: true, driver: "bob@desk"), .screen(ShellScreenUpdate(from: nil, to: Self.screen(), revision: 1)),
            .ask(peerName: "carol@host3"), .withdrawn, .refused(reason: "no"), .ended(status: 130),
        ]

    @Test("Every message reads back as it was written")
    func roundTrip() throws {
        let messages = Self.messages
        for message in messages {
            #expect(try ShellMessage(bytes: message.bytes) == message)
        }
        #expect(messages.count == 17)
    }

    @Test("Each message written field by field is its dictionary written whole, byte for byte; random screens too")
    func writtenAsItsDictionary() {
        for message in Self.messages {
            #expect(message.bytes == BinaryPropertyListWriter().write(.dictionary(message.dictionary)), "\(message)")
        }
        #expect(Self.messages.count == 17)
        // Screens of up to 40 styles (past the list's switch to a table), wide and combined graphemes.
        var generator = SystemRandomNumberGenerator()
        let graphemes = ["a", "~", " ", "中", "e\u{301}", "🇫", "👩\u{200D}💻", "\u{1b}", "é"]
        var compared = 0
        for round in 0..<200 {
            let screen = Self.randomScreen(round: round, rows: 4, columns: 12, graphemes: graphemes, using: &generator)
            let message = ShellMessage.screen(ShellScreenUpdate(from: nil, to: screen, revision: round))
            #expect(message.bytes == BinaryPropertyListWriter().write(.dictionary(message.dictionary)))
            compared += 1
        }
        #expect(compared == 200)
    }

    @Test("A partial update carries the changed rows only, and applies to the screen it was made from")
    func partialUpdate() throws {
        let old = Self.screen()
        var new = old
        new.setRow(2, "done  ".map { ShellCell(String($0)) })
        new.cursorColumn = 0
        let update = ShellScreenUpdate(from: old, to: new, revision: 2)
        #expect(!update.full)
        #expect(update.lines.map(\.row) == [2])
        guard case .screen(let read) = try ShellMessage(bytes: ShellMessage.screen(update).bytes) else {
            Issue.record("not a screen")
            return
        }
        #expect(try read.applied(to: old) == new)
        #expect(throws: ShellScreenUpdate.ApplyError.noBase) { try read.applied(to: ShellScreen(rows: 2, columns: 6)) }
        #expect(ShellScreenUpdate(from: new, to: new, revision: 3).changesNothing(of: new))
    }

    @Test("Hostile screens are refused, never drawn")
    func hostile() {
        func screen(_ change: (inout [String: PropertyListValue]) -> Void) -> [UInt8] {
            var d: [String: PropertyListValue] = [
                "kind": "screen", "revision": 1, "full": true, "rows": 1, "columns": 2, "cursorRow": 0, "cursorColumn": 0,
                "cursorVisible": true, "altScreen": false, "mouse": 0, "title": "", "styles": [[-1, -1, 0]],
                "lines": [["row": 0, "runs": [["ab", 0, 1]]]],
            ]
            change(&d)
            return BinaryPropertyListWriter().write(.dictionary(d))
        }
        #expect((try? ShellMessage(bytes: screen { _ in })) != nil)
        let bad: [(String, (inout [String: PropertyListValue]) -> Void)] = [
            ("a row too wide", { $0["lines"] = [["row": 0, "runs": [["abc", 0, 1]]]] }),
            ("a row too narrow", { $0["lines"] = [["row": 0, "runs": [["a", 0, 1]]]] }),
            ("an escape in a cell", { $0["lines"] = [["row": 0, "runs": [["\u{1b}x", 0, 1]]]] }),
            ("a delete in a cell", { $0["lines"] = [["row": 0, "runs": [["a\u{7f}", 0, 1]]]] }),
            ("a style that is not there", { $0["lines"] = [["row": 0, "runs": [["ab", 1, 1]]]] }),
            ("a row outside", { $0["lines"] = [["row": 1, "runs": [["ab", 0, 1]]]] }),
            ("a huge screen", { $0["rows"] = 100_000 }),
            ("the cursor outside", { $0["cursorColumn"] = 2 }),
            ("a title with a control", { $0["title"] = "\u{7}bell" }),
            ("a colour out of range", { $0["styles"] = [[0x2000000, -1, 0]] }),
            ("unknown attribute bits", { $0["styles"] = [[-1, -1, .integer(1 << 20)]] }),
        ]
        for (name, change) in bad {
            #expect(throws: ShellMessage.ReadError.self, "\(name)") { try ShellMessage(bytes: screen(change)) }
        }
        #expect(bad.count == 11)
        #expect(throws: ShellMessage.ReadError.notAPropertyList) { try ShellMessage(bytes: [0x62, 0x70]) }
        #expect(throws: ShellMessage.ReadError.unknownKind) {
            try ShellMessage(bytes: BinaryPropertyListWriter().write(["kind": "later"]))
        }
    }
}
