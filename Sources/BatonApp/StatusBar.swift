import TerminalUI

/// Draws the bottom line in reverse video: session kind, peer name, how many peers, the
/// endpoint, the network state, `DOS` for a file whose lines end in CR LF, and a mark while the activity is not handed off; what the
/// editor's last search found ("3 of 17"); in windows
/// too small for the hint line, how many activities are nearby. Parts that do not fit are left
/// out, least useful first: endpoint, peer name, peer count, nearby count, network.
enum StatusBar {
    static let separator = " · "

    static func draw(_ model: AppModel, row: Int, into frame: inout ScreenBuffer, memo: ViewMemo? = nil) {
        let style = Style(reverse: true)
        guard let memo else {
            frame.clearRow(row, style: style)
            frame.putTruncated(text(for: model, width: frame.width), x: 0, y: row, width: frame.width, style: style)
            return
        }
        let inputs = Inputs(model, width: frame.width)
        memo.drawStatus(inputs, y: row, into: &frame) { frame in
            frame.clearRow(row, style: style)
            frame.putTruncated(inputs.text, x: 0, y: row, width: frame.width, style: style)
        }
    }

    /// What the bar's text is made of: the same inputs give the same row, so a frame whose
    /// inputs did not change (nearly every key) takes the last frame's (`ViewMemo`).
    struct Inputs: Equatable {
        let status: StatusInfo
        let isCounter: Bool
        let findResult: String?
        let nearbyInBar: Int?
        let isCRLF: Bool
        let notHandedOff: Bool
        let width: Int

        init(_ model: AppModel, width: Int) {
            status = model.status
            isCounter = model.session.kind == .counter
            if case .editor(let state) = model.session {
                findResult = state.findResult
                isCRLF = state.lineEnding == .crlf
            } else {
                findResult = nil
                isCRLF = false
            }
            nearbyInBar = model.layout.messageRow == nil && !model.nearby.isEmpty ? model.nearby.count : nil
            notHandedOff = model.publishProblem != nil || model.handoffOff != nil
            self.width = width
        }

        /// The bar's text (before any final truncation).
        var text: String {
            let peers = status.peersHeard == 1 ? "1 peer" : "\(status.peersHeard) peers"
            // (priority, text): higher priority stays longer.
            var parts: [(priority: Int, text: String)] = [
                (10, isCounter ? "Counter" : "Editor"),
                (5, status.peerName),
                (6, peers),
                (4, status.endpoint),
                (8, status.network.label),
            ]
            // What the last search, go-to or undo found (the title line has Ln, Col and [+]).
            if let findResult { parts.insert((9, findResult), at: 1) }
            // No line for the nearby hint in a small window: count them here.
            if let nearbyInBar { parts.insert((7, "↪ \(nearbyInBar) nearby"), at: 1) }
            // The file's lines end in CR LF, and saving keeps them so.
            if isCRLF { parts.insert((9, "DOS"), at: 1) }
            if notHandedOff { parts.append((9, "⚠ not handed off")) }
            parts.removeAll { $0.text.isEmpty }
            func render() -> String { " " + parts.map(\.text).joined(separator: separator) }
            while render().columns > width, parts.count > 1 {
                let lowest = parts.indices.min { parts[$0].priority < parts[$1].priority }!
                parts.remove(at: lowest)
            }
            let text = render()
            return text.columns > width ? String(text.dropFirst()) : text
        }
    }

    /// The bar's text for `width` columns (before any final truncation).
    static func text(for model: AppModel, width: Int) -> String {
        Inputs(model, width: width).text
    }
}
