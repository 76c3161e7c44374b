import BatonShell
import Foundation
import ShellDisplay
import Testing

/// ncurses keeps process-wide state, so these run one at a time.
@Suite("ShellDisplay on a pseudo-terminal", .serialized)
struct ShellDisplayTerminalTests {
    /// A terminal, or nil (said why) where this machine cannot give one.
    static func terminal(rows: Int = 24, columns: Int = 80) -> TestTerminal? {
        do {
            return try TestTerminal(rows: rows, columns: columns)
        } catch {
            print("skipping: \(error)")
            return nil
        }
    }

    @Test("A screen with colours and a wide grapheme reaches the terminal as its text; then only changes")
    func showsAScreen() throws {
        guard let terminal = Self.terminal() else { return }
        defer { terminal.close() }
        #expect(terminal.display.size == (24, 80))
        var screen = ShellScreen(rows: 30, columns: 100)
        let red = ShellStyle(foreground: .indexed(196), background: .rgb(10, 20, 30), attributes: [.bold, .italic])
        var row = [ShellCell("h", style: red), ShellCell("i", style: red), ShellCell("中", width: 2), .continuation(.plain)]
        row += "|end".map { ShellCell(String($0), style: ShellStyle(foreground: .indexed(4), attributes: .underline)) }
        row += Array(repeating: .blank, count: 100 - row.count)
        screen.setRow(2, row)
        screen.cursorRow = 2
        screen.cursorColumn = 4
        terminal.display.show(screen, status: "following alice@laptop")
        #expect(terminal.wait(untilOutput: { output in output.contains(utf8: "following alice@laptop") && output.contains(utf8: "|end") }))
        let first = terminal.output
        // Each run in its own style: the wide grapheme between them, the others after it.
        #expect(first.contains(utf8: "hi"))
        #expect(first.contains(utf8: "中"))

        // The same screen again writes no cell; one changed cell writes that cell.
        terminal.display.show(screen, status: "following alice@laptop")
        row[5] = ShellCell("E", style: ShellStyle(foreground: .indexed(4), attributes: .underline))
        screen.setRow(2, row)
        terminal.display.show(screen, status: "following alice@laptop")
        #expect(terminal.wait(untilOutput: { output in output.count > first.count && Array(output[first.count...]).contains(utf8: "E") }))
        let update = Array(terminal.output[first.count...])
        #expect(!update.contains(utf8: "following"))
        #expect(!update.contains(utf8: "中"))
        #expect(update.count < 40)
    }

    @Test("A cluster too long for one ncurses cell is written whole at every draw, its row changed or not")
    func longClusterEveryDraw() throws {
        guard let terminal = Self.terminal() else { return }
        defer { terminal.close() }
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦"
        var screen = ShellScreen(rows: 24, columns: 80)
        screen.setRow(0, [ShellCell(family, width: 2), .continuation(.plain)] + Array(repeating: .blank, count: 78))
        terminal.display.show(screen, status: nil)
        #expect(terminal.wait(untilOutput: { $0.contains(utf8: family) }))
        let first = terminal.output.count
        screen.setRow(3, "abc".map { ShellCell(String($0)) } + Array(repeating: .blank, count: 77))
        terminal.display.show(screen, status: nil)
        #expect(terminal.wait(untilOutput: { output in output.count > first && Array(output[first...]).contains(utf8: "abc") }))
        #expect(terminal.wait(untilOutput: { output in output.count > first && Array(output[first...]).contains(utf8: family) }))
    }

    @Test("Keys typed at the terminal arrive as keys: arrows, Ctrl-arrows, a paste, Ctrl-C, text, Alt")
    func decodesKeys() async throws {
        guard let terminal = Self.terminal() else { return }
        defer { terminal.close() }
        // Drawn first: once it is read, the display has set the terminal up.
        terminal.display.show(ShellScreen(rows: 2, columns: 10), status: "ready")
        #expect(terminal.wait(untilOutput: { output in output.contains(utf8: "ready") }))
        let expected: [(String, ShellDisplayEvent)] = [
            ("\u{1b}[A", .input(.key(.up, modifiers: []))),
            ("\u{1b}OA", .input(.key(.up, modifiers: []))),
            ("\u{1b}[1;5C", .input(.key(.right, modifiers: .control))),
            ("\u{1b}[200~a\nb\u{1b}[201~", .input(.paste("a\nb"))),
            ("\u{3}", .input(.text("c", modifiers: .control))),
            ("hé中", .input(.text("hé中", modifiers: []))),
            ("\u{1b}x", .input(.text("x", modifiers: .alt))),
            ("\u{1b}[1;2Q", .input(.key(.function(14), modifiers: []))),
            ("\r", .input(.key(.enter, modifiers: []))),
        ]
        for (typed, event) in expected {
            let before = terminal.received.count
            terminal.type(typed)
            let arrived = await terminal.wait { events, _ in events.count > before }
            #expect(arrived, "nothing arrived for \(typed.debugDescription)")
            guard arrived else { continue }
            #expect(Array(terminal.received[before...]) == [event], "for \(typed.debugDescription)")
        }
    }

    /// A screen of `texts` on its first rows and blanks below, 24 × 80.
    static func screen(_ texts: [Int: (String, ShellStyle)]) -> ShellScreen {
        var screen = ShellScreen(rows: 24, columns: 80)
        for (y, (text, style)) in texts {
            screen.setRow(y, text.map { ShellCell(String($0), style: style) } + Array(repeating: .blank, count: 80 - text.count))
        }
        return screen
    }

    /// Shows `texts`, then the same with `mark` on row 1, and waits for the mark: every byte of the
    /// first draw has been read by then. Returns what both wrote.
    static func draw(_ texts: [Int: (String, ShellStyle)], mark: String, on terminal: TestTerminal) -> [UInt8] {
        let start = terminal.output.count
        terminal.display.show(screen(texts), status: nil)
        var marked = texts
        marked[1] = (mark, .plain)
        terminal.display.show(screen(marked), status: nil)
        #expect(terminal.wait(untilOutput: { output in output.count > start && Array(output[start...]).contains(utf8: mark) }))
        return Array(terminal.output[start...])
    }

    @Test("A blank bottom is not searched for a clear-to-end-of-screen, and what stops the search is not sent")
    func blankBottomCornerMarked() throws {
        guard let terminal = Self.terminal() else { return }
        defer { terminal.close() }
        let start = terminal.output.count
        var texts: [Int: (String, ShellStyle)] = [:]
        for y in 0..<6 { texts[y] = ("line \(y)", .plain) }
        _ = Self.draw(texts, mark: "first-mark", on: terminal)

        // The bottom row was blank and stays so: its last cell is marked, and nothing of that is
        // sent. The changed rows are all these draws write.
        texts[0] = ("LINE 0", .plain)
        let written = Self.draw(texts, mark: "second-mark", on: terminal)
        #expect(written.contains(utf8: "LINE"))
        #expect(written.count < 60, "written: \(String(decoding: written, as: UTF8.self).debugDescription)")
        #expect(!written.contains(utf8: "24;80"))

        // Three rows go blank. ncurses would have found the blank rows at the bottom and cleared
        // them with one clear-to-end-of-screen (`ed`); the marked cell stops that search, so
        // each row is cleared to its end (`el`).
        for y in 3..<6 { texts[y] = nil }
        let cleared = Self.draw(texts, mark: "third-mark", on: terminal)
        #expect(cleared.count(of: "\u{1b}[K") >= 3)
        #expect(!cleared.contains(utf8: "\u{1b}[J"))
        // The bottom-right cell was never written: ncurses writes it with the terminal's
        // automatic margins off (xterm's `rmam`), which no other cell needs.
        #expect(!Array(terminal.output[start...]).contains(utf8: "\u{1b}[?7l"))
    }

    @Test("A bottom row that goes blank is cleared as it was before any mark, then marked")
    func bottomRowBlankedThenMarked() throws {
        guard let terminal = Self.terminal() else { return }
        defer { terminal.close() }
        let start = terminal.output.count
        var texts: [Int: (String, ShellStyle)] = [0: ("top", .plain), 23: ("notes.txt", ShellStyle(attributes: .reverse))]
        _ = Self.draw(texts, mark: "first-mark", on: terminal)
        // The bottom row is cleared (to the end of the line or of the screen), not written over
        // with spaces.
        texts[23] = nil
        let blanked = Self.draw(texts, mark: "second-mark", on: terminal)
        #expect(blanked.contains(utf8: "\u{1b}[K") || blanked.contains(utf8: "\u{1b}[J"))
        #expect(!blanked.contains(utf8: "     "), "written: \(String(decoding: blanked, as: UTF8.self).debugDescription)")
        // A draw with the bottom row still blank marks its last cell; then text on the row takes
        // the mark off, and the rest of the row is cleared to, not written.
        texts[0] = ("top again", .plain)
        _ = Self.draw(texts, mark: "third-mark", on: terminal)
        texts[23] = ("more", .plain)
        let written = Self.draw(texts, mark: "fourth-mark", on: terminal)
        #expect(written.contains(utf8: "more"))
        #expect(!written.contains(utf8: "     "), "written: \(String(decoding: written, as: UTF8.self).debugDescription)")
        // Nor was the bottom-right cell ever written (see above).
        #expect(!Array(terminal.output[start...]).contains(utf8: "\u{1b}[?7l"))
    }

    @Test("A terminal given back while another is open leaves the other reading keys and drawing")
    func secondTerminalShutsDown() async throws {
        guard let terminal = Self.terminal(), let other = Self.terminal() else { return }
        defer { terminal.close() }
        other.display.show(ShellScreen(rows: 2, columns: 10), status: "other")
        #expect(other.wait(untilOutput: { output in output.contains(utf8: "other") }))
        other.close()

        terminal.display.show(ShellScreen(rows: 2, columns: 10), status: "still here")
        #expect(terminal.wait(untilOutput: { output in output.contains(utf8: "still here") }))
        terminal.type("\u{1b}[A")
        #expect(await terminal.wait { events, _ in events == [.input(.key(.up, modifiers: []))] })
    }

    @Test("Shutdown gives the terminal back, is idempotent, and finishes the events")
    func shutsDown() async throws {
        guard let terminal = Self.terminal() else { return }
        defer { terminal.close() }
        terminal.display.show(ShellScreen(rows: 2, columns: 10), status: nil)
        terminal.display.shutdown()
        terminal.display.shutdown()
        #expect(await terminal.wait { _, finished in finished })
        // Drawing after shutdown does nothing, and the size stays the last one seen.
        terminal.display.show(ShellScreen(rows: 2, columns: 10), status: "late")
        #expect(terminal.display.size == (24, 80))
        #expect(!terminal.output.contains(utf8: "late"))
    }
}
