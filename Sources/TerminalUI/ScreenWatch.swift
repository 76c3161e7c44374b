import Synchronization

/// Whether a frame drawn since `TestBackend.watch(for:)` contained a text: for a line that shows a
/// few seconds only (a notice), which a wait begun later could miss when the machine is slow.
public final class ScreenWatch: Sendable {
    /// What is looked for.
    public let text: String
    private let first = Mutex<DrawnFrame?>(nil)

    init(text: String) {
        self.text = text
    }

    /// The first frame that contained `text`, nil until one did.
    public var frame: DrawnFrame? {
        first.withLock { $0 }
    }

    /// Whether a frame contained `text`.
    public var seen: Bool {
        frame != nil
    }

    /// Notes `drawn` if it is the first frame to contain `text`.
    func note(_ drawn: DrawnFrame) {
        first.withLock { frame in
            if frame == nil, drawn.contains(text) { frame = drawn }
        }
    }
}
