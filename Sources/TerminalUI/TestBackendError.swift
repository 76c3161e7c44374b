/// Why a `TestBackend` wait ended without the frame it waited for.
public enum TestBackendError: Error, Equatable, CustomStringConvertible {
    /// No drawn frame satisfied the condition within `timeout`; `lastScreen` is
    /// what was on screen at the deadline (empty when nothing was drawn).
    case timedOut(waitingFor: String, timeout: Duration, framesDrawn: Int, lastScreen: [String])
    /// The waiting task was cancelled.
    case cancelled(waitingFor: String)

    /// A sentence, followed by the last screen for timeouts.
    public var description: String {
        switch self {
        case let .timedOut(what, timeout, frames, screen):
            var text = "timed out after \(timeout) waiting for \(what); \(frames) frame(s) drawn"
            if screen.isEmpty {
                text += ", none to show"
            } else {
                text += ", the last one:\n"
                text += screen.map { "  │" + $0 + "│" }.joined(separator: "\n")
            }
            return text
        case let .cancelled(what):
            return "cancelled while waiting for \(what)"
        }
    }
}
