import HandoffWire

/// Why a continuation stream could not be opened, or ended other than by a close.
public enum ContinuationStreamFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The source no longer holds the activity (ERROR 03).
    case notHeld
    /// The activity, or the program, takes no continuation streams (ERROR 04, or 02 from a
    /// source that predates them, or no `continuationPort` in what it published).
    case notSupported
    /// The source closed at the handshake: this device is not on its list (or its key differs).
    case notListed
    /// The source carries its most continuation streams (ERROR 05).
    case busy
    /// No connection to the source, or it did not answer in time.
    case unreachable(String)
    /// The source answered with another refusal.
    case refused(code: UInt8, message: String)
    /// The other side broke the protocol, or this side did.
    case brokenRule(String)
    /// The link went silent or ended without a close.
    case lost(String)
    /// The stream was closed (by either side) before this could be done.
    case closed
    /// A message over 32 MiB.
    case messageTooLarge(Int)

    public var description: String { PeerText.visible(sentence) }

    private var sentence: String {
        switch self {
        case .notHeld: "it no longer holds that activity"
        case .notSupported: "that activity takes no continuation streams"
        case .notListed: "it closed at the handshake: this device is not on its list"
        case .busy: "it carries its most continuation streams already"
        case .unreachable(let reason): "it cannot be reached (\(reason))"
        case .refused(let code, let message): "it refused the stream (\(StreamErrorCode(rawValue: code))\(message.isEmpty ? "" : ": \(message)"))"
        case .brokenRule(let reason): reason
        case .lost(let reason): "the link was lost (\(reason))"
        case .closed: "the stream is closed"
        case .messageTooLarge(let bytes): "a message of \(bytes) bytes is over the 32 MiB a stream carries"
        }
    }

    /// What a refusal's code means to the opener.
    init(code: StreamErrorCode, message: String) {
        switch code {
        case .notHeld: self = .notHeld
        case .notSupported, .badRequest: self = .notSupported
        case .busy: self = .busy
        default: self = .refused(code: code.rawValue, message: message)
        }
    }
}
