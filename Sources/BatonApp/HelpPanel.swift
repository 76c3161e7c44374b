import TerminalUI

/// The keys (F1): a box over the session listing each key and what it does. Where the window is
/// too short for all of them (the editor's need 25 rows of 80 × 24's 21), ↑ ↓ PgUp PgDn scroll
/// the list and its last row says how many are above and below; any other key closes it.
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
        ("Alt-C", "the cursor's line and column in the title, or not"),
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

    static func keys(for kind: SessionKind) -> [(key: String, does: String)] {
        kind == .counter ? counterKeys : editorKeys
    }

    /// Where the box goes and how many entries it shows at once, or nil when there is no room.
    struct Placement {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var bordered: Bool
        /// Rows for entries: all of them, or one fewer than the box's inner rows when the last
        /// one says what is above and below.
        var entryRows: Int
        /// The box's rows inside its border.
        var innerHeight: Int
        var scrolls: Bool
        var keyWidth: Int
    }

    static func placement(_ kind: SessionKind, layout: ScreenLayout) -> Placement? {
        let keys = keys(for: kind)
        let areaHeight = layout.mainBottom
        let areaWidth = layout.size.width
        guard areaHeight > 0, areaWidth > 0 else { return nil }
        let keyWidth = keys.map(\.key.columns).max() ?? 0
        let bordered = areaHeight >= 3 && areaWidth >= 8
        let innerHeight = min(keys.count, areaHeight - (bordered ? 2 : 0))
        guard innerHeight > 0 else { return nil }
        let width = min(areaWidth, max(40, keyWidth + 2 + (keys.map(\.does.columns).max() ?? 0) + 4))
        let height = innerHeight + (bordered ? 2 : 0)
        let scrolls = innerHeight < keys.count
        return Placement(
            left: (areaWidth - width) / 2, top: (areaHeight - height) / 2, width: width, height: height, bordered: bordered,
            entryRows: scrolls ? max(1, innerHeight - 1) : keys.count, innerHeight: innerHeight, scrolls: scrolls,
            keyWidth: keyWidth)
    }

    /// Whether the keys do not all fit, so that the list scrolls.
    static func scrolls(_ kind: SessionKind, layout: ScreenLayout) -> Bool {
        placement(kind, layout: layout)?.scrolls ?? false
    }

    /// The first entry shown after `key`, with `first` shown before it, or nil when `key` closes
    /// the list (any key but ↑ ↓ PgUp PgDn, and those too when every key is in view).
    static func scrolled(from first: Int, by key: Key, kind: SessionKind, layout: ScreenLayout) -> Int? {
        guard let placement = placement(kind, layout: layout), placement.scrolls else { return nil }
        let page = placement.entryRows
        let last = max(0, keys(for: kind).count - page)
        let first = min(max(first, 0), last)
        switch key {
        case .down: return min(first + 1, last)
        case .up: return max(first - 1, 0)
        case .pageDown: return min(first + page, last)
        case .pageUp: return max(first - page, 0)
        default: return nil
        }
    }

    static func draw(_ kind: SessionKind, from first: Int, layout: ScreenLayout, into frame: inout ScreenBuffer) {
        guard let placement = placement(kind, layout: layout) else { return }
        let keys = keys(for: kind)
        let (left, top, boxWidth, boxHeight) = (placement.left, placement.top, placement.width, placement.height)
        frame.fill(" ", x: left, y: top, width: boxWidth, height: boxHeight)
        if placement.bordered {
            frame.drawBox(title: "─ Keys ", x: left, y: top, width: boxWidth, height: boxHeight)
        }
        let innerLeft = left + (placement.bordered ? 2 : 0)
        let innerWidth = boxWidth - (placement.bordered ? 4 : 0)
        let innerTop = top + (placement.bordered ? 1 : 0)
        let keyWidth = placement.keyWidth
        let first = min(max(first, 0), max(0, keys.count - placement.entryRows))
        let shown = keys[first..<min(keys.count, first + placement.entryRows)]
        for (row, entry) in shown.enumerated() {
            let y = innerTop + row
            frame.putTruncated(entry.key, x: innerLeft, y: y, width: min(keyWidth, innerWidth), style: Style(bold: true))
            let x = innerLeft + keyWidth + 2
            if x < innerLeft + innerWidth {
                frame.putTruncated(entry.does, x: x, y: y, width: innerLeft + innerWidth - x)
            }
        }
        // One row is too few to say what is above and below as well.
        guard placement.scrolls, placement.entryRows < placement.innerHeight else { return }
        let above = first
        let below = keys.count - first - shown.count
        let counts = [above > 0 ? "\(above) above" : nil, below > 0 ? "\(below) below" : nil].compactMap { $0 }
        frame.putTruncated("… " + counts.joined(separator: ", ") + ": ↑ ↓ PgUp PgDn", x: innerLeft,
            y: innerTop + placement.entryRows, width: innerWidth, style: Style(dim: true))
    }
}
