import BatonShell
import Glibc
import ShellHost
import Testing

@Suite("libvterm holds the screen; a program on a pseudo-terminal")
struct TerminalEmulatorTests {
    @Test("Colours, attributes, wide graphemes and the cursor come out as cells")
    func cells() {
        let emulator = TerminalEmulator(rows: 4, columns: 12)
        #expect(!emulator.hasChanges)
        emulator.write(Array("\u{1b}[1;31mred\u{1b}[0m 中x\r\n\u{1b}[38;5;200;48;2;1;2;3mz".utf8))
        #expect(emulator.hasChanges)
        let screen = emulator.screen
        #expect(!emulator.hasChanges)
        #expect(screen.text(ofRow: 0).hasPrefix("red 中x"))
        #expect(screen.rows[0][0].style == ShellStyle(foreground: .indexed(1), attributes: [.bold]))
        #expect(screen.rows[0][3].style == .plain)
        #expect(screen.rows[0][4].width == 2 && screen.rows[0][5].isContinuation)
        #expect(screen.rows[1][0].style == ShellStyle(foreground: .indexed(200), background: .rgb(1, 2, 3)))
        #expect(screen.cursorRow == 1 && screen.cursorColumn == 1)
        emulator.write([])
        #expect(!emulator.hasChanges)
        // A burst of output is read once, when the screen is asked for: the newest rows.
        for n in 0..<200 { emulator.write(Array("line \(n)\r\n".utf8)) }
        #expect(emulator.hasChanges)
        #expect(emulator.screen.text(ofRow: 2) == "line 199    ")
    }

    @Test("C1 controls written in UTF-8 (C2 80 to C2 9F), and a C2 that starts no character at once, are ignored, also split between reads: libvterm 0.1.4 put its cursor at column -1 for U+0080 to U+009F, and a tab stop set there wrote outside its memory")
    func utf8C1Ignored() {
        var checked = 0
        for second in UInt8(0x80)...UInt8(0x9F) {
            for tail in ["\u{1b}H", "\u{1b}\u{1b}H", "x\u{1b}H", "\u{1b}7\u{1b}8", "\u{1b}[2J", "y"] {
                let emulator = TerminalEmulator(rows: 3, columns: 10)
                let plain = TerminalEmulator(rows: 3, columns: 10)
                // Whole, then with the C2 ending one read and the next byte starting another.
                emulator.write([0x61, 0xC2, second] + Array(tail.utf8) + Array("\tb\r\n".utf8))
                emulator.write([0x61, 0xC2])
                emulator.write([second] + Array(tail.utf8) + Array("\tb\r\n".utf8))
                for _ in 0..<2 { plain.write(Array("a\(tail)\tb\r\n".utf8)) }
                #expect(emulator.screen == plain.screen, "C2 \(String(second, radix: 16)) then \(String(reflecting: tail))")
                checked += 1
            }
        }
        #expect(checked == 32 * 6)
        // libvterm keeps an unfinished character across controls and escape sequences: a C2 that
        // does not start a character at once goes, whole or split between reads.
        for between in ["\r", "\u{1b}[m", "\u{1b}]0;t\u{7}", "\u{7}"] {
            for split in [false, true] {
                let emulator = TerminalEmulator(rows: 3, columns: 10)
                let without = TerminalEmulator(rows: 3, columns: 10)
                let rest = Array(between.utf8) + [0x85] + Array("\u{1b}Hz\tb".utf8)
                if split {
                    emulator.write([0x61, 0xC2])
                    emulator.write(rest)
                } else {
                    emulator.write([0x61, 0xC2] + rest)
                }
                without.write([0x61] + rest)
                #expect(emulator.screen == without.screen, "C2 then \(String(reflecting: between)) then 85, split: \(split)")
            }
        }
        // A C2 that starts another character is kept, whole or split.
        let emulator = TerminalEmulator(rows: 2, columns: 10)
        emulator.write([0xC2, 0xA9, 0x20, 0xC2])
        emulator.write([0xB5])
        #expect(emulator.screen.text(ofRow: 0).hasPrefix("© µ"))
    }

    @Test("The alternate screen, the title, the hidden cursor and the mouse mode are followed")
    func modes() {
        let emulator = TerminalEmulator(rows: 3, columns: 10)
        emulator.write(Array("shell".utf8))
        emulator.write(Array("\u{1b}[?1049h\u{1b}]2;vim notes.txt\u{7}\u{1b}[?25l\u{1b}[?1002h\u{1b}[Hvim".utf8))
        #expect(emulator.screen.alternateScreen)
        #expect(emulator.screen.title == "vim notes.txt")
        #expect(!emulator.screen.cursorVisible)
        #expect(emulator.screen.mouse == .drag)
        #expect(emulator.screen.text(ofRow: 0).hasPrefix("vim"))
        emulator.write(Array("\u{1b}[?1049l\u{1b}[?25h\u{1b}[?1002l".utf8))
        #expect(!emulator.screen.alternateScreen && emulator.screen.cursorVisible && emulator.screen.mouse == .none)
        #expect(emulator.screen.text(ofRow: 0).hasPrefix("shell"))
    }

    @Test("Keys are encoded the way the program asked")
    func keys() {
        let emulator = TerminalEmulator(rows: 3, columns: 10)
        emulator.type(.key(.up, modifiers: []))
        #expect(emulator.takeOutput() == Array("\u{1b}[A".utf8))
        emulator.write(Array("\u{1b}[?1h".utf8))  // application cursor keys, as vim and less ask
        emulator.type(.key(.up, modifiers: []))
        #expect(emulator.takeOutput() == Array("\u{1b}OA".utf8))
        emulator.type(.text("c", modifiers: .control))
        #expect(emulator.takeOutput() == [3])
        // Ctrl-J, Ctrl-M, Ctrl-I and Ctrl-[ as the C0 bytes terminals send, not libvterm's CSI u.
        emulator.type(.text("jmi[", modifiers: .control))
        #expect(emulator.takeOutput() == [0x0A, 0x0D, 0x09, 0x1B])
        emulator.type(.text("x", modifiers: [.control, .alt]))
        #expect(emulator.takeOutput() == [0x1B, 0x18])
        emulator.type(.text("é", modifiers: []))
        #expect(emulator.takeOutput() == Array("é".utf8))
        emulator.write(Array("\u{1b}[?2004h".utf8))
        emulator.type(.paste("a\nb"))
        #expect(emulator.takeOutput() == Array("\u{1b}[200~a\rb\u{1b}[201~".utf8))
        emulator.write(Array("\u{1b}[?1000h\u{1b}[?1006h".utf8))
        emulator.type(.mouse(row: 1, column: 4, button: 1, pressed: true, modifiers: []))
        #expect(emulator.takeOutput() == Array("\u{1b}[<0;5;2M".utf8))
    }

    @Test("A program on a pseudo-terminal: its output, its size and its exit status")
    func pseudoterminal() throws {
        let pty = try Pseudoterminal(
            arguments: ["/bin/sh", "-c", "stty size; printf 'hi\\033[32mgreen'; exit 3"], environment: ["TERM": "xterm-256color"],
            folder: "/", rows: 7, columns: 33)
        let emulator = TerminalEmulator(rows: 7, columns: 33)
        while let chunk = pty.read() { emulator.write(chunk) }
        #expect(pty.waitForExit() == 3)
        pty.closeMaster()
        #expect(emulator.screen.text(ofRow: 0).hasPrefix("7 33"))
        #expect(emulator.screen.text(ofRow: 1).hasPrefix("higreen"))
        #expect(emulator.screen.rows[1][2].style.foreground == .indexed(2))
        #expect(throws: Pseudoterminal.StartError.self) {
            try Pseudoterminal(arguments: ["/nonexistent/program"], environment: [:], folder: "/", rows: 2, columns: 2)
        }
    }

    @Test("The program holds its terminal and no other descriptor of the process that starts it")
    func onlyItsTerminal() throws {
        // A descriptor of this process's own, not closed on exec, as the keeper's sockets were.
        let held = open("/dev/null", O_RDONLY)
        try #require(held > 2)
        defer { close(held) }
        let pty = try Pseudoterminal(
            arguments: ["/bin/sh", "-c", #"line=fds; for f in /proc/$$/fd/*; do line="$line ${f##*/}"; done; echo "$line."; exit 0"#],
            environment: [:], folder: "/", rows: 4, columns: 200)
        let emulator = TerminalEmulator(rows: 4, columns: 200)
        while let chunk = pty.read() { emulator.write(chunk) }
        #expect(pty.waitForExit() == 0)
        pty.closeMaster()
        let said = emulator.screen.text(ofRow: 0)
        let numbers = said.split(separator: " ").dropFirst().compactMap { Int32($0.filter { $0 != "." }) }.sorted()
        try #require(said.hasPrefix("fds "), "the program's line: \(said)")
        // The shell's glob may hold the folder it reads: one descriptor above 2 at most.
        #expect(Array(numbers.prefix(3)) == [0, 1, 2], "the program's descriptors: \(said)")
        #expect(numbers.count <= 4 && !numbers.contains(held), "the program's descriptors: \(said)")
    }
}
