import TerminalUI

/// Draws the counter: the count in block digits in the middle, or in plain digits when the
/// window is too small for them.
enum CounterView {
    static func draw(_ state: CounterState, layout: ScreenLayout, into frame: inout ScreenBuffer) {
        let height = layout.contentHeight
        let width = layout.contentWidth
        guard height > 0, width > 0 else { return }
        let text = String(state.count)
        let blockWidth = BlockDigits.width(of: text)
        if blockWidth <= width, BlockDigits.height <= height, let rows = BlockDigits.rows(for: text) {
            let x = (width - blockWidth) / 2
            let y = layout.contentTop + (height - BlockDigits.height) / 2
            for (offset, row) in rows.enumerated() {
                frame.put(row, x: x, y: y + offset, style: Style(bold: true))
            }
        } else {
            let x = max(0, (width - text.count) / 2)
            let y = layout.contentTop + (height - 1) / 2
            frame.put(text, x: x, y: y, style: Style(bold: true))
        }
    }
}
