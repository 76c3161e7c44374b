/// Why fetching a state over the state stream failed; nothing of the state is kept.
///
/// `connectionLost` is the one passing kind: a fetch resumes after it. Every other case ends
/// the fetch. `description` says what happened and what a person can do about it.
public enum StreamFailure: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The request cannot be sent (an OFFER with a bad size, digest or activity id).
    case invalidRequest(String)
    /// The source did not prove that it is the device and sender that offered: another sender
    /// answered, or its signature did not verify (or the ServerHello was changed on the way).
    case authenticationFailed
    /// The source keeps no state with this activity, revision and digest (ERROR 01).
    case notFound
    /// The source refused the request (ERROR 02, or a code this side does not know).
    case refused(code: UInt8, message: String)
    /// The source broke the protocol in an authenticated frame.
    case badResponse(String)
    /// The connection could not be made, dropped, stalled or carried a frame that did not open.
    case connectionLost(String)
    /// Six connections in a row brought no new byte.
    case gaveUp(connections: Int, received: Int, size: Int, lastReason: String)
    /// The whole state arrived but does not hash to the offered digest.
    case digestMismatch
    /// The task fetching was cancelled.
    case cancelled

    /// Whether a fetch connects again after this (only `connectionLost`).
    public var isPassing: Bool {
        if case .connectionLost = self { return true }
        return false
    }

    /// What happened, with text from the source (a refusal's message) shown through `PeerText.visible`.
    public var description: String { PeerText.visible(sentence) }

    private var sentence: String {
        switch self {
        case .invalidRequest(let reason):
            return "The offer cannot be fetched: \(reason)."
        case .authenticationFailed:
            return "The source did not prove that it is the device that offered the activity (another program answered, or its signature did not verify); if that machine was set up again, pair with it again."
        case .notFound:
            return "The source no longer keeps this revision of the activity (it was saved again since, or stopped being offered); continue it again to fetch the latest."
        case .refused(let code, let message):
            let detail = message.isEmpty ? "" : ": \(message)"
            return "The source refused the request (\(StreamErrorCode(rawValue: code))\(detail)); the two programs may not agree on the protocol."
        case .badResponse(let reason):
            return "The source broke the state stream protocol (\(reason)); the two programs may not agree on the protocol."
        case .connectionLost(let reason):
            return "The connection to the source was lost: \(reason)."
        case .gaveUp(let connections, let received, let size, let lastReason):
            return "The source stopped answering: \(connections) connections in a row brought no data (last: \(lastReason)), with \(ByteSize.text(received)) of \(ByteSize.text(size)) received. Check that it is still running and that TCP is not blocked between the machines."
        case .digestMismatch:
            return "The state that arrived does not match the offer's digest, so it was thrown away."
        case .cancelled:
            return "The fetch was cancelled."
        }
    }
}
