/// Why a pairing ended without a key changing hands.
public enum PairingFailure: Equatable, Sendable, CustomStringConvertible {
    case declinedHere, declinedThere
    /// Another pairing's HELLO or connection came, from `from` (an address) when known.
    case anotherPairing(from: String?)
    case commitmentMismatch
    /// The other side's COMMIT or PUBLIC carries this version byte, not ours.
    case otherVersion(UInt8)
    /// The other side's signature over the transcript did not verify.
    case identityNotProved
    /// The other side sent this side's own identity.
    case sameDevice
    /// The sharer answered COMMIT with ABORT 03, as a sharer of pairing version 1 does.
    case commitRefused
    case protocolError(String)
    case timedOut
    case connectionLost
    case otherSideAborted(UInt8)
    /// This side's list says the other machine was removed from the group (ABORT 05 sent).
    case otherRemoved(name: String)
    /// This side's list says this machine was removed from the group (ABORT 06 sent).
    case thisRemoved
    /// The other side's list says this machine was removed (ABORT 05 received).
    case removedThere
    /// The other side's list says that machine was removed (ABORT 06 received).
    case otherRemovedThere

    /// The ABORT reason this side sends for it, or nil when nothing is sent.
    var abortReason: UInt8? {
        switch self {
        case .declinedHere: 1
        case .anotherPairing: 2
        case .commitmentMismatch, .protocolError, .otherVersion, .identityNotProved, .sameDevice: 3
        case .timedOut: 4
        case .otherRemoved: Pairing.abortRemovedThere
        case .thisRemoved: Pairing.abortRemovedHere
        case .declinedThere, .connectionLost, .otherSideAborted, .commitRefused, .removedThere, .otherRemovedThere: nil
        }
    }

    public var description: String {
        switch self {
        case .declinedHere: "Not paired: you did not confirm the code. Nothing was changed."
        case .declinedThere: "Not paired: the other side did not confirm the code. Nothing was changed."
        case .anotherPairing(let from?):
            "Not paired: another pairing is running on this network (heard from \(PeerText.visible(from))); try again when it is over."
        case .anotherPairing(nil): "Not paired: another pairing is running on this network; try again."
        case .commitmentMismatch:
            "Not paired: the other side's key does not match its commitment (someone may be interfering). Nothing was changed."
        case .otherVersion(let version) where version < Pairing.version:
            "Not paired: the other side runs an older Baton (pairing version \(version)): update it. Nothing was changed."
        case .otherVersion(let version):
            "Not paired: the other side runs a newer Baton (pairing version \(version)): update this one. Nothing was changed."
        case .identityNotProved:
            "Not paired: the other side did not prove its identity (its signature does not verify; someone may be interfering). Nothing was changed."
        case .sameDevice:
            "Not paired: the other side is this machine (the same identity.key). Nothing was changed."
        case .commitRefused:
            "Not paired: the other side refused this side's first message, as an older Baton (pairing version 1) does: run `baton --version` there, and update it if it says pairing 1. Nothing was changed."
        case .protocolError(let what): "Not paired: \(what). Nothing was changed."
        case .timedOut: "Not paired: the pairing timed out. Nothing was changed."
        case .connectionLost: "Not paired: the other side went away. Nothing was changed."
        case .otherRemoved(let name):
            "Not paired: \(PeerText.visible(name)) was removed from this group (`baton devices` shows it), and a removed identity cannot come back. Nothing was changed."
        case .thisRemoved:
            "Not paired: this machine was removed from the group (`baton doctor` says by whom), and a removed identity cannot come back. Nothing was changed."
        case .removedThere:
            "Not paired: the other machine lists this one as removed from the group, and a removed identity cannot come back. Nothing was changed."
        case .otherRemovedThere:
            "Not paired: the other machine was removed from the group, and a removed identity cannot come back. Nothing was changed."
        case .otherSideAborted(let reason):
            switch reason {
            case 2: "Not paired: another pairing is running on this network; try again."
            case 3: "Not paired: the other side saw a protocol error. Nothing was changed."
            case 4: "Not paired: the other side timed out. Nothing was changed."
            default: "Not paired: the other side ended the pairing. Nothing was changed."
            }
        }
    }
}

