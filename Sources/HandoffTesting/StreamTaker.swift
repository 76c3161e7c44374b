import Handoff

/// An activity's delegate that keeps every continuation stream it is given.
@MainActor
public final class StreamTaker: UserActivityDelegate {
    public private(set) var streams: [ContinuationStream] = []

    public init() {}

    public func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        streams.append(stream)
    }
}

/// Reads a stream's messages from when it is made, and how they ended.
@MainActor
public final class MessageReader {
    public private(set) var messages: [[UInt8]] = []
    /// nil while the stream lasts; "closed", or the error that ended it.
    public private(set) var end: String?
    private var task: Task<Void, Never>?

    public init(_ stream: ContinuationStream) {
        task = Task { @MainActor [weak self] in
            do {
                for try await message in stream.messages { self?.messages.append(message) }
                self?.end = "closed"
            } catch {
                self?.end = "\(error)"
            }
        }
    }

    deinit { task?.cancel() }
}
