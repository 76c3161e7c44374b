@testable import BatonShell
import Foundation
import Testing

/// Fixed shell-session messages → exact bytes (`Tests/HandoffWireTests/Vectors/golden/shell.json`,
/// docs/PROTOCOL.md sections 12 and 20): one of every kind, and two screens, the second changing
/// one row of the first. `scripts/check-vectors.py` checks the file independently;
/// `BATON_WRITE_VECTORS=1 swift test --filter ShellVector` rewrites it (only when the protocol
/// deliberately changes).
@Suite("Shell session golden vectors")
struct ShellVectorTests {
    /// A value the independent check compares a message's plist with: a string, an integer or a
    /// boolean.
    enum Scalar: Codable, Equatable {
        case string(String), integer(Int), boolean(Bool)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) { self = .boolean(value) }
            else if let value = try? container.decode(Int.self) { self = .integer(value) }
            else { self = .string(try container.decode(String.self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .boolean(let value): try container.encode(value)
            }
        }
    }

    struct Message: Codable, Equatable {
        var name: String
        /// `terminal` or `keeper`.
        var from: String
        /// Hex of the message's binary plist.
        var bytes: String
        /// Every key of the message but `styles` and `lines`, with its value.
        var fields: [String: Scalar]
        /// A screen only: each row's text after the update is applied (to the screen before it,
        /// for the second), a cell of width 2 followed by nothing for the column it covers.
        var screen: [String]?
    }

    struct Vector: Codable, Equatable {
        var messages: [Message]
    }

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HandoffWireTests/Vectors/golden/shell.json")

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static func unhex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    /// The two screens: 3 × 12, vim's title, the alternate screen, a hidden cursor, drags asked.
    /// Row 0: a red bold `$`, then `ls` and two wide characters; row 1: `e` with a combining
    /// acute, a lone regional indicator, a flag and an emoji with a skin tone (each its own cell);
    /// row 2 blank. The second writes `ok` in italic underline, 24-bit orange on indexed blue,
    /// on row 2.
    static var screens: (first: ShellScreen, second: ShellScreen) {
        var first = ShellScreen(rows: 3, columns: 12)
        first.title = "vim notes.txt"
        first.alternateScreen = true
        first.cursorVisible = false
        first.mouse = .drag
        first.cursorRow = 2
        first.cursorColumn = 3
        let red = ShellStyle(foreground: .indexed(1), attributes: [.bold])
        func row(_ cells: [ShellCell]) -> [ShellCell] {
            cells + Array(repeating: .blank, count: 12 - cells.count)
        }
        first.setRow(0, row([
            ShellCell("$", style: red), .blank, ShellCell("l"), ShellCell("s"), .blank,
            ShellCell("中", width: 2), .continuation(.plain), ShellCell("文", width: 2), .continuation(.plain),
        ]))
        first.setRow(1, row([
            ShellCell("e\u{301}"), ShellCell("\u{1F1E8}"), ShellCell("\u{1F1E6}\u{1F1E7}", width: 2), .continuation(.plain),
            ShellCell("\u{1F44B}\u{1F3FD}", width: 2), .continuation(.plain),
        ]))
        var second = first
        let orange = ShellStyle(foreground: .rgb(255, 128, 0), background: .indexed(4), attributes: [.italic, .underline])
        second.setRow(2, row([ShellCell("o", style: orange), ShellCell("k", style: orange)]))
        second.cursorRow = 2
        second.cursorColumn = 2
        return (first, second)
    }

    /// Every message of section 20, in the order of its tables, then the two screens.
    static var script: [(name: String, from: String, message: ShellMessage)] {
        let (first, second) = screens
        return [
            ("hello", "terminal", .hello(role: .drive, peerName: "bob@desk", rows: 24, columns: 80)),
            ("text", "terminal", .input(.text("c", modifiers: .control))),
            ("key", "terminal", .input(.key(.up, modifiers: .shift))),
            ("key f5", "terminal", .input(.key(.function(5), modifiers: []))),
            ("paste", "terminal", .input(.paste("ls\nexit"))),
            ("mouse", "terminal", .input(.mouse(row: 3, column: 10, button: 1, pressed: true, modifiers: .alt))),
            ("resize", "terminal", .resize(rows: 30, columns: 100)),
            ("take", "terminal", .take),
            ("answer", "terminal", .answer(allow: true)),
            ("shown", "terminal", .shown(revision: 7)),
            ("role", "keeper", .role(drives: true, driver: "bob@desk")),
            ("screen full", "keeper", .screen(ShellScreenUpdate(from: nil, to: first, revision: 1))),
            ("screen rows", "keeper", .screen(ShellScreenUpdate(from: first, to: second, revision: 2))),
            ("ask", "keeper", .ask(peerName: "carol@host3")),
            ("withdrawn", "keeper", .withdrawn),
            ("refused", "keeper", .refused(reason: "alice@laptop said no")),
            ("ended", "keeper", .ended(status: 130)),
        ]
    }

    /// Each row's text: the cells' graphemes, a continuation adding nothing.
    static func text(_ screen: ShellScreen) -> [String] {
        screen.rows.map { $0.map(\.grapheme).joined() }
    }

    /// The message's keys but `styles` and `lines`, as the check compares them.
    static func fields(_ message: ShellMessage) -> [String: Scalar] {
        message.dictionary.filter { $0.key != "styles" && $0.key != "lines" }.mapValues { value in
            switch value {
            case .string(let text): .string(text)
            case .integer(let number): .integer(number)
            case .boolean(let flag): .boolean(flag)
            default: fatalError("a shell message's key of another type: \(value)")
            }
        }
    }

    static func make() -> Vector {
        let (first, second) = screens
        return Vector(messages: script.map { name, from, message in
            let screen: [String]? = switch name {
            case "screen full": text(first)
            case "screen rows": text(second)
            default: nil
            }
            return Message(name: name, from: from, bytes: hex(message.bytes), fields: fields(message), screen: screen)
        })
    }

    @Test("The fixed messages give the committed bytes; each committed message reads back as itself, and the two screens apply")
    func vector() throws {
        let made = Self.make()
        let committed = try committedShellGolden(made)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        #expect(try encoder.encode(made) == Data(contentsOf: Self.file), "the committed JSON, byte for byte")
        #expect(committed.messages.count == 17)
        let script = Self.script
        var screen: ShellScreen?
        for (vector, (name, _, message)) in zip(committed.messages, script) {
            let read = try ShellMessage(bytes: Self.unhex(vector.bytes))
            #expect(read == message, "\(name) reads back as itself")
            if case .screen(let update) = read {
                screen = try update.applied(to: screen)
                #expect(screen.map(Self.text) == vector.screen, "\(name): the screen after it")
            }
        }
        #expect(screen?.rows[2].first?.style == ShellStyle(foreground: .rgb(255, 128, 0), background: .indexed(4), attributes: [.italic, .underline]))
    }

    /// The committed file, after writing `made` there when `BATON_WRITE_VECTORS=1`.
    func committedShellGolden(_ made: Vector) throws -> Vector {
        if ProcessInfo.processInfo.environment["BATON_WRITE_VECTORS"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(made).write(to: Self.file)
        }
        let committed = try JSONDecoder().decode(Vector.self, from: Data(contentsOf: Self.file))
        #expect(made == committed)
        return committed
    }
}
