import TerminalUI

/// Draws the bottom line in reverse video: session kind, peer name, how many peers, the
/// endpoint, the network state, `DOS` for a file whose lines end in CR LF, and a mark while the activity is not handed off; what the
/// editor's last search found ("3 of 17"); in windows
/// too small for the hint line, how many activities are nearby. Parts that do not fit are left
/// out, least useful first: endpoint, peer name, peer count, nearby count, network.
enum StatusBar {
    static let separator = " · "

    static func draw(_ model: AppModel, row: Int, into frame: inout ScreenBuffer) {
        let style = Style(reverse: true)
        frame.clearRow(row, style: style)
        frame.putTruncated(text(for: model, width: frame.width), x: 0, y: row, width: frame.width, style: style)
    }

    /// The bar's text for `width` columns (before any final truncation).
    static func text(for model: AppModel, width: Int) -> String {
        let status = model.status
        let kind = model.session.kind == .counter ? "Counter" : "Editor"
        let peers = status.peersHeard == 1 ? "1 peer" : "\(status.peersHeard) peers"
        // (priority, text): higher priority stays longer.
        var parts: [(priority: Int, text: String)] = [
            (10, kind),
            (5, status.peerName),
            (6, peers),
            (4, status.endpoint),
            (8, status.network.label),
        ]
        if case .editor(let state) = model.session {
            // What the last search, go-to or undo found (the title line has Ln, Col and [+]).
            if let found = state.findResult { parts.insert((9, found), at: 1) }
        }
        if model.layout.messageRow == nil && !model.nearby.isEmpty {
            // No line for the nearby hint in a small window: count them here.
            parts.insert((7, "↪ \(model.nearby.count) nearby"), at: 1)
        }
        if case .editor(let state) = model.session, state.lineEnding == .crlf {
            // The file's lines end in CR LF, and saving keeps them so.
            parts.insert((9, "DOS"), at: 1)
        }
        if model.publishProblem != nil || model.handoffOff != nil { parts.append((9, "⚠ not handed off")) }
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
