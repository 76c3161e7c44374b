public enum PairingAction: Equatable, Sendable {
    /// Write these bytes to the connection.
    case send([UInt8])
    /// Print `Code: …` and ask the person; `peerName` is the other side's claimed name, `peer`
    /// the identity it sent (its fingerprint goes beside the code).
    case showCode(String, peerName: String, peer: PublicIdentity)
    /// Joiner only: store this key atomically, the sharer as a paired device, and `statements`
    /// (the group's statements the sharer sent that were taken, and this side's introduction
    /// of the sharer), then call `stored(_:)`.
    case storeKey(GroupKey, statements: [[UInt8]])
    /// Done: paired with `peerName`, whose identity `peer` proved itself. `statements` are the
    /// ones to keep beside its entry: on the sharer, its introduction of the joiner; on the
    /// joiner, the ones of `storeKey`, already stored.
    case paired(peerName: String, peer: PublicIdentity, statements: [[UInt8]])
    /// Done: nothing changed.
    case failed(PairingFailure)
}

