import TerminalUI

/// The keys, on one screen (F1): a box over the session listing each key and what it does,
/// in two columns when the terminal is wide enough. Any key closes it.
enum HelpPanel {
    /// The editor's keys, in the order a person looks for them.
    static let editorKeys: [(key: String, does: String)] = [
        ("Ctrl-S", "save"),
        ("Ctrl-O", "save as"),
        ("Ctrl-Q, Ctrl-X", "quit (asks about unsaved changes)"),
        ("Ctrl-N", "nearby sessions: continue one"),
        ("Ctrl-Z, Alt-U", "undo"),
        ("Ctrl-Y", "redo"),
        ("Ctrl-F, Ctrl-W", "search (in its prompt: Alt-C case, Alt-R regexp)"),
        ("F3", "search again"),
        ("Ctrl-\\, Alt-R", "replace: y, n, a(ll), Esc"),
        ("Ctrl-G", "go to line"),
        ("Ctrl-6, Alt-A", "set or unset the mark (select)"),
        ("Shift-arrows", "select"),
        ("Ctrl-K", "cut the selection, or the line"),
        ("Alt-6", "copy the selection, or the line"),
        ("Ctrl-U", "paste (the clipboard follows you)"),
        ("Ctrl-←, Ctrl-→", "word left, word right"),
        ("Home, End, Ctrl-A, Ctrl-E", "start, end of the line"),
        ("Ctrl-Home, Ctrl-End", "start, end of the text (Alt-\\, Alt-/)"),
        ("PgUp, PgDn", "page up, page down"),
        ("Alt-N", "line numbers on or off"),
        ("Alt-S", "soft wrap on or off"),
        ("Alt-M", "mouse on or off: a click places the cursor"),
        ("F1", "this list"),
    ]

    /// The counter's keys.
    static let counterKeys: [(key: String, does: String)] = [
        ("+, -", "count up, down"),
        ("r", "reset to 0"),
        ("n, Ctrl-N", "nearby sessions: continue one"),
        ("q, Ctrl-Q", "quit"),
        ("F1", "this list"),
    ]

    static func draw(_ kind: SessionKind, layout: ScreenLayout, into frame: inout ScreenBuffer) {
        let keys = kind == .counter ? counterKeys : editorKeys
        let areaHeight = layout.mainBottom
        let areaWidth = layout.size.width
        guard areaHeight > 0, areaWidth > 0 else { return }
        let keyWidth = keys.map(\.key.columns).max() ?? 0
        let bordered = areaHeight >= 3 && areaWidth >= 8
        let innerHeight = min(keys.count, areaHeight - (bordered ? 2 : 0))
        guard innerHeight > 0 else { return }
        let boxWidth = min(areaWidth, max(40, keyWidth + 2 + (keys.map(\.does.columns).max() ?? 0) + 4))
        let boxHeight = innerHeight + (bordered ? 2 : 0)
        let left = (areaWidth - boxWidth) / 2
        let top = (areaHeight - boxHeight) / 2
        frame.fill(" ", x: left, y: top, width: boxWidth, height: boxHeight)
        if bordered {
            frame.drawBox(title: "─ Keys ", x: left, y: top, width: boxWidth, height: boxHeight)
        }
        let innerLeft = left + (bordered ? 2 : 0)
        let innerWidth = boxWidth - (bordered ? 4 : 0)
        let innerTop = top + (bordered ? 1 : 0)
        // What does not fit says so on its last row.
        let shown = keys.count <= innerHeight ? keys.count : innerHeight - 1
        for (row, entry) in keys.prefix(max(0, shown)).enumerated() {
            let y = innerTop + row
            frame.putTruncated(entry.key, x: innerLeft, y: y, width: min(keyWidth, innerWidth), style: Style(bold: true))
            let x = innerLeft + keyWidth + 2
            if x < innerLeft + innerWidth {
                frame.putTruncated(entry.does, x: x, y: y, width: innerLeft + innerWidth - x)
            }
        }
        if shown < keys.count {
            frame.putTruncated("… \(keys.count - max(0, shown)) more in a taller window", x: innerLeft,
                y: innerTop + innerHeight - 1, width: innerWidth, style: Style(dim: true))
        }
    }
}
