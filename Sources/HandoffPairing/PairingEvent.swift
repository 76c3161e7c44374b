import Handoff
import HandoffWire

/// What a `PairingSession` tells the program that runs it, in order. After `.paired`,
/// `.failed` or `.unreachable` nothing more comes, and the stream ends once the session's
/// sockets are closed (its last frame, an ABORT or STORED, written first).
public enum PairingEvent: Equatable, Sendable {
    /// Joiner: a HELLO came from `host` (an IPv4 address), and the session is connecting to
    /// it at TCP `port`. The pairing's time limit bounds the connecting too.
    case found(host: String, port: Int)
    /// A HELLO of another pairing version came from `host`: say so once (it is otherwise
    /// ignored, and the pairing goes on). Comes at most once per session.
    case otherVersion(host: String, version: UInt8)
    /// Both sides derived the code: show it and ask the person (then call `answer(_:)`).
    /// `peerName` is the other side's claimed name, not yet made safe to print; `peer` the
    /// identity it sent, whose fingerprint goes beside the code.
    case code(String, peerName: String, peer: PublicIdentity)
    /// Done: the key changed hands (the joiner stored it; the sharer heard STORED), and `peer`
    /// proved its identity: the driver lists it as a paired device, with `statements` (the
    /// sharer's introduction of the joiner; on the joiner, those it stored with the key).
    case paired(peerName: String, peer: PublicIdentity, statements: [[UInt8]])
    /// Done: nothing changed, for this reason.
    case failed(PairingFailure)
    /// Done (joiner): the sharer whose HELLO came first could not be reached; the message says where and why.
    case unreachable(String)
}
