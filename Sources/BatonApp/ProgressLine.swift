import Handoff
import TerminalUI

/// The one line `baton --continue-activity` keeps on stderr while a large activity is fetched,
/// before the UI opens: what to write for each progress report, redrawn in place with a
/// carriage return, and cleared when the fetch is over.
///
/// Before the first byte the line says it is connecting, as the progress overlay does
/// ("Connecting… · 0 bytes of 2.2 MB · from alice@laptop · Esc cancels"), so a source that
/// does not answer leaves no blank terminal while the fetch tries again.
/// Nothing is drawn for a fetch that is over within `BatonApp.continueOverlayDelay`. When
/// stderr is not a terminal nothing is redrawn; a fetch that took longer leaves one summary
/// line ("Fetched 16 MB from alice@laptop in 2.3 s").
public struct ProgressLine: Sendable {
    /// Whether stderr is a terminal, where a line can be redrawn.
    public let isTerminal: Bool
    /// The terminal's width; the line keeps off the last column, so it never wraps.
    public var width: Int
    /// Redraws come at most this often (the last report always shows).
    public static let redrawInterval: Duration = .milliseconds(100)
    /// After this long without a report the line says it is waiting, instead of showing a
    /// rate that no longer moves.
    public static let quietAfter: Duration = .seconds(2)

    /// Columns of the line now on the terminal, 0 when none.
    private var drawnColumns = 0
    /// When, in the fetch's time, the line was last drawn.
    private var drawnAt: Duration?
    /// The whole seconds of quiet the line shows now, nil when it shows a rate.
    private var drawnQuietSeconds: Int?
    /// The newest report.
    public private(set) var last: TransferProgress?

    /// What the line ends with when there is room, e.g. "Esc cancels".
    public var hint: String?

    public init(isTerminal: Bool, width: Int, hint: String? = nil) {
        self.isTerminal = isTerminal
        self.width = width
        self.hint = hint
    }

    /// The fetch of `total` bytes from `peerName` has run for `elapsed` without a report: once
    /// that is `BatonApp.continueOverlayDelay`, returns the connecting line to write (once; a
    /// report replaces it), else nil.
    public mutating func waiting(elapsed: Duration, total: Int?, peerName: String) -> String? {
        guard isTerminal, last == nil, drawnColumns == 0, elapsed >= BatonApp.continueOverlayDelay else { return nil }
        let text = TransferText.connectingLine(total: total, peerName: peerName, hint: hint, width: max(1, width - 1))
        drawnColumns = text.columns
        return "\r" + text
    }

    /// The fetch has run for `elapsed` (in the fetch's time, as reports have it): when no
    /// report came for `quietAfter` or more, returns the line again with "waiting N s" in place
    /// of its rate (each second once), else nil. Call it every few hundred milliseconds while
    /// the fetch runs.
    public mutating func quiet(elapsed: Duration) -> String? {
        guard isTerminal, drawnColumns > 0, let last, last.received < last.total else { return nil }
        let quiet = elapsed - last.elapsed
        guard quiet >= Self.quietAfter else { return nil }
        let seconds = Int(quiet.inSeconds)
        guard seconds != drawnQuietSeconds else { return nil }
        drawnQuietSeconds = seconds
        return draw(TransferText.line(last, width: max(1, width - 1), hint: hint, quiet: quiet))
    }

    /// Whether a line is on the terminal now.
    public var isDrawn: Bool { drawnColumns > 0 }

    /// Takes a report; returns what to write to stderr, nil when nothing.
    public mutating func update(_ progress: TransferProgress) -> String? {
        last = progress
        guard isTerminal, progress.elapsed >= BatonApp.continueOverlayDelay else { return nil }
        let complete = progress.received >= progress.total
        if drawnQuietSeconds == nil, let drawnAt, progress.elapsed - drawnAt < Self.redrawInterval, !complete { return nil }
        drawnAt = progress.elapsed
        drawnQuietSeconds = nil
        return draw(TransferText.line(progress, width: max(1, width - 1), hint: hint))
    }

    /// `text` in place of the line drawn before.
    private mutating func draw(_ text: String) -> String {
        let columns = text.columns
        // Blanks over what a longer line before left behind.
        let padding = max(0, drawnColumns - columns)
        drawnColumns = columns
        return "\r" + text + String(repeating: " ", count: padding)
    }

    /// The fetch is over: returns what to write to stderr, nil when nothing. On a terminal
    /// that clears the line (blanks across the width, which also covers a "^C" the terminal
    /// echoed after it, then back to its start) so the UI or an error message starts on a
    /// clean line; elsewhere it is the summary of a fetch that succeeded after taking long
    /// enough to be reported.
    public mutating func finish(succeeded: Bool) -> String? {
        defer { drawnColumns = 0 }
        if isTerminal {
            guard drawnColumns > 0 else { return nil }
            return "\r" + String(repeating: " ", count: max(drawnColumns, width - 1)) + "\r"
        }
        guard succeeded, let last, last.elapsed >= BatonApp.continueOverlayDelay else { return nil }
        return TransferText.summary(last) + "\n"
    }
}
