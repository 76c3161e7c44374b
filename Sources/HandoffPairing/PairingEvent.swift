import Handoff
import HandoffWire

/// What a `PairingSession` tells the program that runs it, in order. After `.paired`,
/// `.failed` or `.unreachable` nothing more comes, and the stream ends once the session's
/// sockets are closed (its last frame, an ABORT or STORED, written first).
public enum PairingEvent: Equatable, Sendable {
    /// Joiner: a HELLO came from `host` (an IPv4 address), and the session is connecting to
    /// it at TCP `port`. The pairing's time limit bounds the connecting too.
    case found(host: String, port: Int)
    /// Both sides derived the code: show it and ask the person (then call `answer(_:)`).
    /// `peerName` is the other side's claimed name, not yet made safe to print.
    case code(String, peerName: String)
    /// Done: the key changed hands (the joiner stored it; the sharer heard STORED).
    case paired(peerName: String)
    /// Done: nothing changed, for this reason.
    case failed(PairingFailure)
    /// Done (joiner): the sharer whose HELLO came first could not be reached; the message says where and why.
    case unreachable(String)
}
