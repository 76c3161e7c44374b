import Handoff
import TerminalUI
import HandoffWire

/// Draws the progress of a continue over the session, once it has taken long enough to show:
///
///     ┌─ Continuing ─────────────────────────┐
///     │ Editing big.log                      │
///     │ from alice@laptop                    │
///     │ ██████████████░░░░░░░░░░░░░░░░░  42% │
///     │ 6.7 MB of 16 MB · 35 MB/s            │
///     │ Esc cancels                          │
///     └──────────────────────────────────────┘
///
/// Before the first report it says it is connecting. In windows too small for all of it, the
/// bar stays longest, then the amounts, the source, the title; the border goes last but one.
enum ContinuePanel {
    /// The widest the box gets.
    static let maximumWidth = 52

    static func draw(_ state: ContinueState, layout: ScreenLayout, into frame: inout ScreenBuffer) {
        let areaHeight = layout.mainBottom
        let areaWidth = layout.size.width
        guard areaHeight > 0, areaWidth > 0 else { return }
        let bordered = areaHeight >= 4 && areaWidth >= 16
        let boxWidth = bordered ? min(areaWidth, maximumWidth) : areaWidth
        let innerWidth = boxWidth - (bordered ? 4 : 0)  // a blank column inside each side
        let room = areaHeight - (bordered ? 2 : 0)
        let lines = self.lines(state, width: innerWidth, room: room)
        let boxHeight = lines.count + (bordered ? 2 : 0)
        let left = (areaWidth - boxWidth) / 2
        let top = (areaHeight - boxHeight) / 2
        frame.fill(" ", x: left, y: top, width: boxWidth, height: boxHeight)
        if bordered { frame.drawBox(title: "─ Continuing ", x: left, y: top, width: boxWidth, height: boxHeight) }
        let innerLeft = left + (bordered ? 2 : 0)
        let innerTop = top + (bordered ? 1 : 0)
        for (offset, line) in lines.enumerated() {
            frame.putTruncated(line.text, x: innerLeft, y: innerTop + offset, width: innerWidth, style: line.style)
        }
    }

    /// The box's lines, top to bottom, keeping the most useful ones when fewer than all fit.
    static func lines(_ state: ContinueState, width: Int, room: Int) -> [(text: String, style: Style)] {
        let percentColumns = 5  // " 100%"
        var bar: String
        var amounts: String
        if let (received, total) = state.amounts {
            let fraction = total > 0 ? min(1, Double(received) / Double(total)) : 1
            let percent = TransferText.percent(fraction)
            bar = TransferText.bar(fraction, width: max(1, width - percentColumns))
                + String(repeating: " ", count: percentColumns - percent.count) + percent
            amounts = TransferText.amounts(received: received, total: total)
        } else {
            bar = TransferText.bar(0, width: max(1, width - percentColumns))
            amounts = ""
        }
        if let progress = state.progress {
            for part in [TransferText.rate(progress.bytesPerSecond), TransferText.resumes(progress.resumes)] {
                if let part { amounts += " · " + part }
            }
        } else {
            amounts = TransferText.connecting(total: state.amounts?.total)
        }
        if width < percentColumns + 4 { bar = TransferText.percent(state.progress?.fraction ?? 0) }
        // (keep: lower stays longer, text, style), in the order drawn.
        var lines: [(keep: Int, text: String, style: Style)] = [
            (3, PeerText.visible(state.title), Style(bold: true)),
            (2, TransferText.source(state.peerName), .plain),
            (0, bar, .plain),
            (1, amounts, .plain),
            (4, "Esc cancels", Style(dim: true)),
        ]
        while lines.count > max(room, 0), let drop = lines.indices.max(by: { lines[$0].keep < lines[$1].keep }) {
            lines.remove(at: drop)
        }
        return lines.map { ($0.text, $0.style) }
    }
}
