import TerminalUI

/// Draws the line above the status bar. It shows, first that applies: the open prompt or
/// question; a notice; why the activity is not handed off (a file over the state limit, a
/// refused record, or no network); the keys of the nearby list or of a continue; the
/// newest nearby activity ("↪ Counter: 5 — bob@desk, 3s ago · Ctrl-N to continue"); the
/// session's keys.
enum MessageLine {
    /// The keys while the progress of a continue shows.
    static let continuingHelp = ["Esc cancel · Ctrl-Q cancel and quit", "Esc cancel"]
    /// The nearby list's keys.
    static let nearbyHelp = ["↑↓ select · Enter continue · Esc close", "↑↓ · Enter · Esc"]
    /// The counter's keys, longest first; the first that fits is shown.
    static let counterHelp = ["+/- count · r reset · n nearby · q quit", "+/- r n q"]
    /// The editor's keys, longest first.
    static let editorHelp = [
        "Ctrl-S save · Ctrl-O save as · Ctrl-Q quit · Ctrl-N nearby · F1 keys",
        "Ctrl-S save · Ctrl-O save as · Ctrl-Q quit · Ctrl-N nearby",
        "^S save · ^O save as · ^Q quit · ^N nearby · F1 keys",
        "^S save · ^O save as · ^Q quit · ^N nearby",
        "^S save  ^O save as  ^Q quit  ^N nearby",
        "^S save  ^Q quit  ^N nearby",
        "^S ^O ^Q ^N",
    ]

    /// Whether, without a message line, the status bar's row is needed for the prompt or a notice.
    static func takesStatusRow(_ model: AppModel, layout: ScreenLayout) -> Bool {
        switch model.overlay {
        case .confirm, .prompt, .replacing: return true
        case .nearby: if layout.mainBottom == 0 { return true }
        case .continuing, .help, nil: break
        }
        return model.visibleNotice != nil
    }

    /// Draws the line at `row` and returns the cursor when a text prompt is open.
    /// `compact` is for the status bar's row in small windows: prompts and notices only.
    static func draw(_ model: AppModel, row: Int, into frame: inout ScreenBuffer, compact: Bool = false, memo: ViewMemo? = nil) -> CursorPosition? {
        let width = frame.width
        frame.clearRow(row)
        switch model.overlay {
        case .prompt(let prompt):
            return drawPrompt(prompt, row: row, into: &frame)
        case .confirm(let confirmation):
            let question = confirmation.question.columns <= width ? confirmation.question : confirmation.shortQuestion
            frame.putTruncated(question, x: 0, y: row, width: width, style: Style(bold: true))
            return nil
        case .nearby(let selectedID):
            if compact && model.visibleNotice == nil {
                let items = model.nearby
                let text = items.isEmpty
                    ? "Nothing nearby"
                    : "▸ " + items[BatonApp.selectedIndex(selectedID, in: items)].title
                frame.putTruncated(text, x: 0, y: row, width: width, style: Style(reverse: true))
                return nil
            }
        case .replacing:
            let question = "Replace this instance? (y)es (n)o (a)ll · Esc stops"
            let text = question.columns <= width ? question : "Replace? y/n/a/Esc"
            frame.putTruncated(text, x: 0, y: row, width: width, style: Style(bold: true))
            return nil
        case .help:
            let hints = HelpPanel.scrolls(model.session.kind, layout: model.layout)
                ? ["↑ ↓ PgUp PgDn: more keys · any other key closes this list", "↑↓ PgUp PgDn: more · other keys close"]
                : ["Any key closes this list"]
            putFirstFitting(hints, row: row, into: &frame, style: Style(dim: true))
            return nil
        case .continuing, nil:
            break
        }
        if let notice = model.visibleNotice {
            let style = notice.kind == .problem
                ? Style(bold: true, reverse: compact, foreground: .red)
                : Style(bold: true, reverse: compact)
            if compact { frame.clearRow(row, style: style) }
            frame.putTruncated(notice.text, x: compact ? 1 : 0, y: row, width: width - (compact ? 1 : 0), style: style)
            return nil
        }
        if let following = model.live?.following {
            // Whose session this is, and how to take it back: the line stays while following.
            let style = following.linkProblem == nil ? Style(bold: true) : Style(bold: true, foreground: .red)
            frame.putTruncated(following.line(takeKey: BatonApp.takeKey(model.session)), x: 0, y: row, width: width, style: style)
            return nil
        }
        if let reason = model.handoffOff {
            // The reason says it: "big.log is 40 MB; Baton hands off files up to 16 MB".
            frame.putTruncated("⚠ \(reason)", x: 0, y: row, width: width, style: Style(foreground: .red))
            return nil
        }
        if let problem = model.publishProblem {
            frame.putTruncated("⚠ Not handed off: \(problem)", x: 0, y: row, width: width, style: Style(foreground: .red))
            return nil
        }
        if case .removed(let reason) = model.status.network, model.overlay == nil {
            // No one hears this machine any more: say so on the whole line, with what to do.
            frame.putTruncated("⚠ Removed from the group, not handed off: \(reason)", x: 0, y: row, width: width,
                style: Style(foreground: .red))
            return nil
        }
        if case .offline(let reason) = model.status.network, model.overlay == nil {
            // The status bar only says "offline"; the reason needs the whole line.
            let text = reason.isEmpty ? "⚠ Offline: not handed off" : "⚠ Offline, not handed off: \(reason)"
            frame.putTruncated(text, x: 0, y: row, width: width, style: Style(foreground: .red))
            return nil
        }
        if case .nearby = model.overlay {
            putKeys(.nearby, row: row, into: &frame, memo: memo)
            return nil
        }
        if case .continuing(let state) = model.overlay, state.isShown {
            putKeys(.continuing, row: row, into: &frame, memo: memo)
            return nil
        }
        if let item = model.nearby.first {
            let key = HintKey(title: item.title, peerName: item.peerName, age: item.age(at: model.now), width: width)
            if let memo {
                memo.drawHint(key, y: row, into: &frame) { $0.put(hint(key), x: 0, y: row) }
            } else {
                frame.put(hint(key), x: 0, y: row)
            }
            return nil
        }
        putKeys(model.session.kind == .counter ? .counter : .editor, row: row, into: &frame, memo: memo)
        return nil
    }

    /// Which of the keys' lines a row shows.
    enum Keys: Equatable {
        case continuing, nearby, counter, editor

        var candidates: [String] {
            switch self {
            case .continuing: continuingHelp
            case .nearby: nearbyHelp
            case .counter: counterHelp
            case .editor: editorHelp
            }
        }
    }

    /// What decides a keys' line: which one, and the row's width.
    struct KeysKey: Equatable {
        let keys: Keys
        let width: Int
    }

    /// Puts the keys' line `keys` at `row` (blank before), dimmed: the last frame's cells when
    /// it put the same one at the same width. It is on the screen while typing, and the same
    /// from key to key.
    static func putKeys(_ keys: Keys, row: Int, into frame: inout ScreenBuffer, memo: ViewMemo?) {
        guard let memo else {
            putFirstFitting(keys.candidates, row: row, into: &frame, style: Style(dim: true))
            return
        }
        memo.drawKeys(KeysKey(keys: keys, width: frame.width), y: row, into: &frame) {
            putFirstFitting(keys.candidates, row: row, into: &$0, style: Style(dim: true))
        }
    }

    /// What decides the nearby hint: the newest activity's title, its peer, its age as shown,
    /// and the row's width.
    struct HintKey: Equatable {
        let title: String
        let peerName: String
        let age: String
        let width: Int
    }

    /// "↪ Counter: 5 — bob@desk, 3s ago · Ctrl-N to continue", shortened to the width: the key
    /// stays, the description gives way.
    static func hint(_ key: HintKey) -> String {
        let width = key.width
        let what = "↪ \(key.title) — \(key.peerName), \(key.age)"
        for suffix in [" · Ctrl-N to continue", " · Ctrl-N"] where what.columns + suffix.columns <= width {
            return what + suffix
        }
        let suffix = " · Ctrl-N"
        if width - suffix.columns >= 8 {
            return what.truncated(toColumns: width - suffix.columns) + suffix
        }
        return what.truncated(toColumns: width)
    }

    /// "Save as: notes.txt" with the cursor in the answer, and why the last answer was refused.
    static func drawPrompt(_ prompt: TextPrompt, row: Int, into frame: inout ScreenBuffer) -> CursorPosition? {
        let width = frame.width
        var label = prompt.label
        var problem = prompt.problem.map { "  " + $0 } ?? ""
        if width - label.columns - problem.columns < 8 { problem = "" }
        if width - label.columns < 2 { label = "" }
        let x = frame.put(label, x: 0, y: row, style: Style(bold: true))
        let fieldWidth = width - x - problem.columns
        guard fieldWidth > 0 else { return nil }
        let field = prompt.field
        let cursorColumn = field.cursorDisplayColumn
        let left = min(cursorColumn, max(0, cursorColumn + field.cursorCharacterWidth - fieldWidth))
        frame.drawScrolled(field.currentLine, from: left, x: x, y: row, width: fieldWidth)
        if !problem.isEmpty {
            frame.put(problem, x: width - problem.columns, y: row, style: Style(foreground: .red))
        }
        return CursorPosition(x: x + cursorColumn - left, y: row)
    }

    /// Draws the first of `candidates` that fits the row, or the last one cut to it. The keys'
    /// line is drawn on every key: a text that fits is measured once and put as it is, which
    /// is what cutting it would come to.
    static func putFirstFitting(_ candidates: [String], row: Int, into frame: inout ScreenBuffer, style: Style) {
        if let text = candidates.first(where: { $0.columns <= frame.width }) {
            frame.put(text, x: 0, y: row, style: style, maxWidth: frame.width)
        } else {
            frame.putTruncated(candidates.last ?? "", x: 0, y: row, width: frame.width, style: style)
        }
    }
}
