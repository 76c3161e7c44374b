// libFuzzer target: the editor's key handling, `TextBuffer` on its own and the whole app
// (`BatonApp.update` and `BatonApp.view`).
//
// Byte 0 sets up: bit 0 starts a counter instead of an editor; bits 1–2 pick the first
// terminal size (80×24, 1×1, 12×3, 0×0). The rest is a script, one step per byte:
//
//   0x20–0x7E  that ASCII character          0x7F  Backspace      0x09  Tab     0x0A  Enter
//   0x01–0x08  Up, Down, Left, Right, Home, End, PgUp, PgDn
//   0x0B Delete   0x0C Shift-Tab   0x0D the character "\r"   0x1B Escape
//   0x16 Ctrl-S   0x17 Ctrl-O   0x19 Ctrl-N   0x1A Ctrl-Q   0x1C Ctrl-A   0x1D Ctrl-E   0x1E Ctrl-C
//   0x00 c        Ctrl-<letter c picks from a–z @ \ ] ^ _>
//   0x0E n        F<n % 25>            0x0F n   an unknown key (code n)
//   0x10 w h      resize to (w % 130)×(h % 60), 0×0 and 1×1 included
//   0x11 l c      cursor to (l, c) (signed, ×7; 0x7F and 0x80 are Int.max and Int.min): the
//                 bare buffer moves there; the app is handed the same text as a continued session
//   0x12 i        a tricky grapheme from `graphemes` (combining marks, emoji, wide, bidi, …)
//   0x13 a b c    the Unicode scalar (a b c) % 0x110000 (surrogates skipped)
//   0x14 n …      the next n % 32 bytes as (lossy) UTF-8 text: inserted at once into the buffer,
//                 typed character by character into the app
//   0x15 s        the clock moves s (signed) × 37 seconds
//   0x18 m …      a message from the Program or the network (see `programMessage`)
//   0x1F k …      an editor key of issue 23, by k % 12: Ctrl-Z, Ctrl-Y, Ctrl-F, Ctrl-W, F3, Ctrl-K,
//                 Ctrl-U, Ctrl-G, Enter, Escape; 10: a bracketed paste of the next n % 32 bytes
//                 (lossy UTF-8, line breaks and controls included); 11: that text 64 times over
//   0x80–0xFF     a UTF-8 sequence (lossy) typed as characters
//   others        ignored
//
// After every step the bare buffer and the app's editor keep their promises (cursor inside
// the text, lines never empty nor holding a line break, segmentation stable: the text a peer
// reads splits into exactly the same characters). At the end the app's frame is drawn at
// the current size — whatever it is — with the cursor, when shown, inside the frame.
import Foundation
import Handoff
import TerminalUI
import BatonApp

private let sizes = [TerminalSize(width: 80, height: 24), .init(width: 1, height: 1), .init(width: 12, height: 3), .init(width: 0, height: 0)]
private let controlLetters = Array("abcdefghijklmnopqrstuvwxyz@\\]^_")
private let graphemes: [Character] = [
    "e\u{301}", "\u{301}", "👋", "👋🏽", "👨‍👩‍👧", "中", "ｱ", "🇫🇷", "🇫", "\u{200B}", "\u{200D}", "\r\n", "\r", "\n", "\t",
    "\u{7}", "\u{1B}", "\u{FEFF}", "\u{0}", "a\u{20DD}", "\u{1F3FD}", "\u{FDFA}", "\u{E000}", "\u{10FFFF}", "\u{AD}",
    "\u{1100}", "\u{1160}", "각", "\u{FE0F}", "☺\u{FE0F}", "\u{2028}", "\u{85}", "\u{202E}", "\u{2066}", "\u{9B}",
    "\u{0E01}\u{0E33}", "\u{0915}\u{094D}", "\u{3099}", "\u{1F1E6}", "🏳️‍🌈",
]

/// Reads a script from the fuzz input.
private struct Script {
    let bytes: [UInt8]
    var index = 0

    mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func byte() -> UInt8 { next() ?? 0 }

    /// A signed coordinate: the byte as Int8 × 7, with the two extremes standing for Int.max and Int.min.
    mutating func coordinate() -> Int {
        switch byte() {
        case 0x7F: .max
        case 0x80: .min
        case let b: Int(Int8(bitPattern: b)) * 7
        }
    }

    /// The next n % 32 bytes as lossy UTF-8.
    mutating func text() -> String {
        let count = Int(byte() % 32)
        var chunk: [UInt8] = []
        for _ in 0..<count { if let b = next() { chunk.append(b) } }
        return String(decoding: chunk, as: UTF8.self)
    }

    /// A lossy UTF-8 sequence starting with `lead` (0x80–0xFF).
    mutating func utf8(lead: UInt8) -> String {
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        var sequence = [lead]
        for _ in 1..<length { if let b = next() { sequence.append(b) } }
        return String(decoding: sequence, as: UTF8.self)
    }
}

/// One thing that happens, as the script says.
private enum Step {
    case key(Key)
    case resize(TerminalSize)
    case moveTo(TextPosition)
    case text(String)
    case tick(Int)
    case message(UInt8, String, Int)
    case paste(String)
}

/// The editor keys of issues 23 and 38 (undo, redo, search, replace, cut and paste, go to line,
/// marks and selections, words, the display toggles, help), for 0x1F.
private let editorKeys: [Key] = [
    .control("z"), .control("y"), .control("f"), .control("w"), .function(3), .control("k"), .control("u"),
    .control("g"), .enter, .escape, .control("\\"), .control("^"), .alt("6"), .alt("a"), .alt("r"), .alt("c"),
    .alt("n"), .alt("s"), .alt("/"), .alt("\\"), .function(1), .character("y"), .character("n"), .character("a"),
    .modified(.left, .control), .modified(.right, .control), .modified(.home, .control), .modified(.end, .control),
    .modified(.left, .shift), .modified(.right, .shift), .modified(.up, .shift), .modified(.down, .shift),
    .modified(.end, .shift),
]

private func nextStep(_ script: inout Script) -> Step? {
    guard let b = script.next() else { return nil }
    switch b {
    case 0x20...0x7E: return .key(.character(Character(Unicode.Scalar(b))))
    case 0x7F: return .key(.backspace)
    case 0x09: return .key(.tab)
    case 0x0A: return .key(.enter)
    case 0x01: return .key(.up)
    case 0x02: return .key(.down)
    case 0x03: return .key(.left)
    case 0x04: return .key(.right)
    case 0x05: return .key(.home)
    case 0x06: return .key(.end)
    case 0x07: return .key(.pageUp)
    case 0x08: return .key(.pageDown)
    case 0x0B: return .key(.delete)
    case 0x0C: return .key(.backTab)
    case 0x0D: return .key(.character("\r"))
    case 0x1B: return .key(.escape)
    case 0x16: return .key(.control("s"))
    case 0x17: return .key(.control("o"))
    case 0x19: return .key(.control("n"))
    case 0x1A: return .key(.control("q"))
    case 0x1C: return .key(.control("a"))
    case 0x1D: return .key(.control("e"))
    case 0x1E: return .key(.control("c"))
    case 0x00: return .key(.control(controlLetters[Int(script.byte()) % controlLetters.count]))
    case 0x0E: return .key(.function(Int(script.byte() % 25)))
    case 0x0F: return .key(.unknown(Int(script.byte())))
    case 0x10:
        let width = Int(script.byte() % 130)
        return .resize(TerminalSize(width: width, height: Int(script.byte() % 60)))
    case 0x11:
        let line = script.coordinate()
        return .moveTo(TextPosition(line: line, column: script.coordinate()))
    case 0x12: return .text(String(graphemes[Int(script.byte()) % graphemes.count]))
    case 0x13:
        let value = (UInt32(script.byte()) << 16 | UInt32(script.byte()) << 8 | UInt32(script.byte())) % 0x110000
        return Unicode.Scalar(value).map { .text(String(Character($0))) } ?? .key(.unknown(Int(value)))
    case 0x14: return .text(script.text())
    case 0x15: return .tick(Int(Int8(bitPattern: script.byte())) * 37)
    case 0x18:
        let kind = script.byte()
        let number = script.coordinate()
        return .message(kind, script.text(), number)
    case 0x1F:
        let k = Int(script.byte()) % (editorKeys.count + 2)
        if k < editorKeys.count { return .key(editorKeys[k]) }
        let text = script.text()
        return .paste(k == editorKeys.count ? text : String(repeating: text, count: 64))
    case 0x80...0xFF: return .text(script.utf8(lead: b))
    default: return .key(.unknown(Int(b)))
    }
}

// MARK: The bare buffer

private func apply(_ step: Step, to buffer: inout TextBuffer, page: Int) {
    switch step {
    case .key(let key):
        switch key {
        case .character(let c): buffer.insert(c)
        case .enter: buffer.insertNewline()
        case .tab: buffer.insertTab()
        case .backspace: buffer.backspace()
        case .delete: buffer.deleteForward()
        case .left: buffer.moveLeft()
        case .right: buffer.moveRight()
        case .up: buffer.moveUp()
        case .down: buffer.moveDown()
        case .home: buffer.moveToLineStart()
        case .end: buffer.moveToLineEnd()
        case .pageUp: buffer.moveUp(by: page)
        case .pageDown: buffer.moveDown(by: page)
        default: break
        }
    case .moveTo(let position): buffer.move(to: position)
    case .text(let text), .paste(let text): buffer.insert(text)
    case .message(_, let text, let number):
        // A buffer made from a peer's text and cursor, as a continue makes it.
        buffer = TextBuffer(text: text, cursor: TextPosition(line: number, column: number))
    case .resize, .tick: break
    }
}

private func check(_ buffer: TextBuffer, _ context: @autoclosure () -> String) {
    let lines = (0..<buffer.lineCount).map { buffer.line($0) }
    func fail(_ what: String) -> Never {
        fatalError("\(context()): \(what); lines \(lines.map { String($0).debugDescription }), cursor \(buffer.cursor)")
    }
    guard buffer.lineCount >= 1 else { fail("no lines") }
    let cursor = buffer.cursor
    guard cursor.line >= 0, cursor.line < buffer.lineCount else { fail("cursor line outside the text") }
    guard cursor.column >= 0, cursor.column <= lines[cursor.line].count else { fail("cursor column outside the line") }
    guard buffer.cursorDisplayColumn >= 0, buffer.cursorCharacterWidth >= 1 else { fail("negative width") }
    // Lines split at LF only: a lone CR is a character of its line, a LF (or CR LF) never is.
    for line in lines where line.contains(where: { $0 == "\n" || $0 == "\r\n" }) {
        fail("a line holds a line break")
    }
    // What a peer reads back is the same characters, so the cursor column means the same there.
    let reread = TextBuffer(text: buffer.text, cursor: cursor)
    let rereadLines = (0..<reread.lineCount).map { reread.line($0) }
    guard rereadLines == lines else {
        fail("the text reads back as other characters: \(rereadLines.map { String($0).debugDescription })")
    }
    guard reread.cursor == cursor else { fail("the cursor reads back as \(reread.cursor)") }
}

// MARK: The app

private let status = StatusInfo(peerName: "alice@laptop", endpoint: "239.255.77.88:47788 on eth0")
private let start = Date(timeIntervalSince1970: 1_800_000_000)

/// A message the Program or the network could send, picked by `kind`, carrying `text` and `number`.
private func programMessage(_ kind: UInt8, text: String, number: Int, model: AppModel) -> AppMessage {
    let pendingPath = model.pendingSave?.path ?? text
    switch kind % 16 {
    case 0: return .published
    case 1: return .publishFailed(text)
    case 2: return .continuedElsewhere(peerName: text)
    case 3: return .continueFailed(text)
    case 4: return .fileSaved(path: pendingPath)
    case 5: return .fileSaveFailed(text)
    case 6: return .saveNeedsConfirmation(path: pendingPath)
    case 7: return .peersHeard(number)
    case 8: return .network(.online)
    case 9: return .network(.offline(text))
    case 10: return .network(.starting)
    case 11:
        let session = Session(
            activityType: Session.editingActivityType,
            userInfo: ["text": .string(text), "cursorLine": .integer(number), "cursorColumn": .integer(number),
                       "fileName": .string(text)],
            from: text)
        return session.map { .continued($0, from: text) } ?? .published
    case 12:
        return .continued(.counter(CounterState(count: number)), from: "bob@desk")
    default:
        // Up to five nearby items; ids repeat so a selection can survive a refresh.
        let count = Int(kind >> 4) % 6
        let items = (0..<count).map { i in
            let ages: [Double] = [0, 5, 3600, -86_400, 1e12, -1e300, .greatestFiniteMagnitude]
            let savedAt = Date(timeIntervalSinceReferenceDate: ages[(i + Int(kind)) % ages.count])
            return NearbyItem(
                id: "activity-\(i % 3)", activityType: i.isMultiple(of: 2) ? Session.editingActivityType : Session.counterActivityType,
                title: i == 0 ? text : "Counter: \(number)", peerName: i == 1 ? text : "bob@desk", savedAt: savedAt,
                lastHeard: model.now)
        }
        return .nearbyChanged(items)
    }
}

private func appMessages(for step: Step, model: AppModel) -> [AppMessage] {
    switch step {
    case .key(let key): return [.key(key)]
    case .resize(let size): return [.resize(size)]
    case .text(let text): return text.map { .key(.character($0)) }
    case .paste(let text): return [.paste(text)]
    case .tick(let seconds): return [.tick(model.now.addingTimeInterval(Double(seconds)))]
    case .moveTo(let position):
        // The buffer's own text, continued with a cursor from anywhere.
        guard case .editor(let state) = model.session else { return [] }
        let text = state.buffer.text
        let session = Session(
            activityType: Session.editingActivityType,
            userInfo: ["text": .string(text), "cursorLine": .integer(position.line), "cursorColumn": .integer(position.column)],
            from: "bob@desk")
        return session.map { [.continued($0, from: "bob@desk")] } ?? []
    case .message(let kind, let text, let number):
        return [programMessage(kind, text: text, number: number, model: model)]
    }
}

private func check(_ model: AppModel, commands: [AppCommand], after message: AppMessage, draw: Bool) {
    if case .editor(let editor) = model.session {
        check(editor.buffer, "the app's editor after \(message)")
        guard editor.scroll.top >= 0, editor.scroll.left >= 0 else {
            fatalError("after \(message): scrolled to \(editor.scroll)")
        }
    }
    if commands.contains(.quit), !model.isQuitting { fatalError("after \(message): quit without isQuitting") }
    if let index = commands.firstIndex(of: .publish), index != 0 { fatalError("after \(message): .publish is not first in \(commands)") }
    guard draw else { return }
    let (frame, cursor) = BatonApp.view(model)
    guard frame.width == model.size.width, frame.height == model.size.height else {
        fatalError("after \(message): a \(frame.width)×\(frame.height) frame for \(model.size)")
    }
    if let cursor, !frame.contains(x: cursor.x, y: cursor.y) {
        fatalError("after \(message): the cursor \(cursor) is outside the \(model.size) frame")
    }
}

/// A paste that changed the editor's text is one edit: one Ctrl-Z right after it gives back
/// the text from before it.
private func checkPasteUndoes(before: AppModel, after: AppModel, _ message: AppMessage) {
    guard case .paste = message, case .editor(let old) = before.session, case .editor(let new) = after.session,
        new.buffer.text != old.buffer.text
    else { return }
    var undone = after
    _ = BatonApp.update(&undone, .key(.control("z")))
    guard case .editor(let state) = undone.session, state.buffer.text == old.buffer.text else {
        fatalError("after \(message): one Ctrl-Z does not give back the text from before the paste")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func editorFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let setup = input[0]

    // The bare buffer.
    var buffer = TextBuffer()
    var script = Script(bytes: Array(input.dropFirst()))
    var steps: [Step] = []
    while let step = nextStep(&script) {
        steps.append(step)
        apply(step, to: &buffer, page: 5)
        check(buffer, "the buffer after \(step)")
    }

    // The app.
    let session: Session = setup & 1 == 0 ? .editor(EditorState()) : .counter(CounterState())
    var model = AppModel(session: session, size: sizes[Int(setup >> 1) % sizes.count], status: status, now: start)
    // The model is checked after every message, the frame drawn once at the end: drawing
    // is most of the cost, and any state on the way is the end state of a shorter input.
    var last = AppMessage.resize(model.size)
    var lastCommands: [AppCommand] = []
    run: for step in steps {
        for message in appMessages(for: step, model: model) {
            let before = model
            lastCommands = BatonApp.update(&model, message)
            last = message
            check(model, commands: lastCommands, after: message, draw: false)
            checkPasteUndoes(before: before, after: model, message)
            if model.isQuitting { break run }
        }
    }
    check(model, commands: lastCommands, after: last, draw: true)
    return 0
}
