import BatonShell
import CNCurses
import Testing
@testable import ShellDisplay

@Suite("ShellDisplay's decisions, headless")
struct ShellDisplayDecisionTests {
    // MARK: Colours

    @Test("Colours keep their number where the terminal has it, and map down where it has not")
    func colours() {
        #expect(ShellPalette.number(for: .default, colors: 256) == -1)
        #expect(ShellPalette.number(for: .indexed(196), colors: 256) == 196)
        #expect(ShellPalette.number(for: .rgb(255, 0, 0), colors: 256) == 196)
        #expect(ShellPalette.number(for: .rgb(128, 128, 128), colors: 256) == 244)
        #expect(ShellPalette.number(for: .rgb(0, 0, 0), colors: 256) == 16)
        // 256 → the nearest of 16 by xterm's palette; bright stay on 16, fold onto 8.
        #expect(ShellPalette.number(for: .indexed(196), colors: 16) == 9)
        #expect(ShellPalette.number(for: .indexed(12), colors: 16) == 12)
        #expect(ShellPalette.number(for: .indexed(12), colors: 8) == 4)
        #expect(ShellPalette.number(for: .indexed(196), colors: 8) == 1)
        #expect(ShellPalette.number(for: .rgb(0, 250, 0), colors: 8) == 2)
        #expect(ShellPalette.number(for: .indexed(231), colors: 16) == 15)
        // No colours at all: the terminal's own.
        #expect(ShellPalette.number(for: .indexed(3), colors: 0) == -1)
        // Direct colour: 24-bit as it is; an index from 8 up as its value.
        #expect(ShellPalette.number(for: .rgb(1, 2, 3), colors: 0x100_0000) == 0x010203)
        #expect(ShellPalette.number(for: .indexed(2), colors: 0x100_0000) == 2)
        #expect(ShellPalette.number(for: .indexed(196), colors: 0x100_0000) == 0xFF0000)
    }

    @Test("Colour pairs: one per (foreground, background), pair 0 for the defaults and past the limit")
    func colourPairs() {
        var pairs = ShellColorPairs()
        let asked: [(Int32, Int32)] = [(-1, -1), (1, -1), (-1, 1), (1, -1), (2, 3), (4, 5)]
        let given = asked.map { pairs.pair(fg: $0.0, bg: $0.1, limit: 4) }
        #expect(given.map(\.number) == [0, 1, 2, 1, 3, 0])
        #expect(given.map(\.isNew) == [false, true, true, false, true, false])
        #expect(pairs.count == 3)
    }

    // MARK: Keys

    @Test("Characters: text grouped, control bytes as letters with Ctrl, the four keys, Alt by Escape")
    func characters() {
        var decoder = ShellKeyDecoder()
        let typed: [UInt32] = [0x68, 0x69, 0x4F60, 3, 9, 13, 127, 27, 0x78, 27, 1, 0x9B, 0, 8, 0x1C, 27]
        #expect(decoder.decode(typed.map { .character($0) }) == [
            .input(.text("hi你", modifiers: [])),
            .input(.text("c", modifiers: .control)),
            .input(.key(.tab, modifiers: [])),
            .input(.key(.enter, modifiers: [])),
            .input(.key(.backspace, modifiers: [])),
            .input(.text("x", modifiers: .alt)),
            .input(.text("a", modifiers: [.alt, .control])),
            .input(.text(" ", modifiers: .control)),
            .input(.text("h", modifiers: .control)),
            .input(.text("\\", modifiers: .control)),
            .input(.key(.escape, modifiers: [])),
        ])
        #expect(decoder.decode([.character(27), .character(27)]) == [.input(.key(.escape, modifiers: .alt))])
        // A combining mark that arrives with its base joins it.
        #expect(decoder.decode([.character(0x65), .character(0x301)]) == [.input(.text("e\u{301}", modifiers: []))])
    }

    @Test("Key codes by name: standard, modified (xterm's suffixes 2–8), F1–F63, and Alt by Escape")
    func keyNames() {
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_UP") == .key(.up, modifiers: []))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_SLEFT") == .key(.left, modifiers: .shift))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_SR") == .key(.up, modifiers: .shift))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_BTAB") == .key(.tab, modifiers: .shift))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_IC") == .key(.insert, modifiers: []))
        #expect(ShellKeyDecoder.input(forKeyName: "kUP") == .key(.up, modifiers: .shift))
        #expect(ShellKeyDecoder.input(forKeyName: "kLFT3") == .key(.left, modifiers: .alt))
        #expect(ShellKeyDecoder.input(forKeyName: "kRIT5") == .key(.right, modifiers: .control))
        #expect(ShellKeyDecoder.input(forKeyName: "kRIT6") == .key(.right, modifiers: [.shift, .control]))
        #expect(ShellKeyDecoder.input(forKeyName: "kHOM7") == .key(.home, modifiers: [.alt, .control]))
        #expect(ShellKeyDecoder.input(forKeyName: "kEND8") == .key(.end, modifiers: .all))
        #expect(ShellKeyDecoder.input(forKeyName: "kDC5") == .key(.delete, modifiers: .control))
        #expect(ShellKeyDecoder.input(forKeyName: "kPRV4") == .key(.pageUp, modifiers: [.shift, .alt]))
        #expect(ShellKeyDecoder.input(forKeyName: "kNXT5") == .key(.pageDown, modifiers: .control))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_F(1)") == .key(.function(1), modifiers: []))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_F(13)") == .key(.function(13), modifiers: []))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_F(63)") == .key(.function(63), modifiers: []))
        #expect(ShellKeyDecoder.input(forKeyName: "KEY_F(64)") == nil)
        #expect(ShellKeyDecoder.input(forKeyName: "kUP9") == nil)
        #expect(ShellKeyDecoder.input(forKeyName: "kxIN") == nil)
        var decoder = ShellKeyDecoder()
        #expect(decoder.decode([.character(27), .key("KEY_LEFT"), .key("KEY_F(5)")]) == [
            .input(.key(.left, modifiers: .alt)), .input(.key(.function(5), modifiers: [])),
        ])
    }

    @Test("A paste is one event across reads, keeps newlines and tabs, drops other controls and keys")
    func paste() {
        var decoder = ShellKeyDecoder()
        let start = [ShellKeyDecoder.Read.character(0x78), .pasteStart] + "a\nb".unicodeScalars.map { .character($0.value) }
        #expect(decoder.decode(start) == [.input(.text("x", modifiers: []))])
        #expect(decoder.decode([.character(27), .key("KEY_UP"), .character(9), .character(0x63), .pasteEnd, .character(3)]) == [
            .input(.paste("a\nb\tc")), .input(.text("c", modifiers: .control)),
        ])
    }

    @Test("Mouse events: presses, releases, the wheel as 4 and 5, moves as button 0, modifiers")
    func mouse() {
        let pressed = UInt(baton_button_pressed(1)) | UInt(baton_button_ctrl())
        #expect(ShellMouse.inputs(row: 2, column: 3, state: pressed) == [
            .mouse(row: 2, column: 3, button: 1, pressed: true, modifiers: .control),
        ])
        #expect(ShellMouse.inputs(row: 0, column: 0, state: UInt(baton_button_released(3))) == [
            .mouse(row: 0, column: 0, button: 3, pressed: false, modifiers: []),
        ])
        #expect(ShellMouse.inputs(row: 1, column: 1, state: UInt(baton_button_pressed(5))) == [
            .mouse(row: 1, column: 1, button: 5, pressed: true, modifiers: []),
        ])
        #expect(ShellMouse.inputs(row: 4, column: 9, state: UInt(baton_report_mouse_position())) == [
            .mouse(row: 4, column: 9, button: 0, pressed: false, modifiers: []),
        ])
        #expect(ShellMouse.mask(for: .none) == 0)
        #expect(ShellMouse.mask(for: .click) & baton_report_mouse_position() == 0)
        #expect(ShellMouse.mask(for: .move) & baton_report_mouse_position() != 0)
        var decoder = ShellKeyDecoder()
        #expect(decoder.decode([.mouse(row: 1, column: 2, state: UInt(baton_button_pressed(4))), .resize(rows: 5, columns: 6)]) == [
            .input(.mouse(row: 1, column: 2, button: 4, pressed: true, modifiers: [])), .resize(rows: 5, columns: 6),
        ])
    }
}
