import TerminalUI

/// Where each part of the screen goes for a size: the status bar at the bottom, the message
/// line above it, the editor's title at the top, the session in between.
///
/// Windows shorter than `fullHeight` rows drop the title and the message line (notices and
/// prompts then use the status bar's row); a one-row window shows only the status bar.
struct ScreenLayout: Equatable {
    /// The fewest rows that get a title and a message line.
    static let fullHeight = 6

    /// The screen size.
    let size: TerminalSize
    /// The status bar's row.
    let statusRow: Int?
    /// The row for notices, hints and prompts, above the status bar.
    let messageRow: Int?
    /// The editor's title row.
    let titleRow: Int?
    /// Rows `0..<mainBottom` hold the title and the session; overlays cover them.
    let mainBottom: Int

    init(size: TerminalSize, kind: SessionKind) {
        self.size = size
        let height = size.height
        guard size.width > 0, height > 0 else {
            statusRow = nil
            messageRow = nil
            titleRow = nil
            mainBottom = 0
            return
        }
        statusRow = height - 1
        let full = height >= Self.fullHeight
        messageRow = full ? height - 2 : nil
        titleRow = full && kind == .editor ? 0 : nil
        mainBottom = full ? height - 2 : height - 1
    }

    /// The first row of the session's content (below the title).
    var contentTop: Int { titleRow.map { $0 + 1 } ?? 0 }
    /// Rows of session content.
    var contentHeight: Int { max(0, mainBottom - contentTop) }
    /// Columns of session content.
    var contentWidth: Int { size.width }
    /// Where a prompt or a notice goes: the message line, or the status bar's row when there is none.
    var promptRow: Int? { messageRow ?? statusRow }
}
