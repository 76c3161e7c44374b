public enum PairingAction: Equatable, Sendable {
    /// Write these bytes to the connection.
    case send([UInt8])
    /// Print `Code: …` and ask the person; `peerName` is the other side's claimed name, `peer`
    /// the identity it sent (its fingerprint goes beside the code).
    case showCode(String, peerName: String, peer: PublicIdentity)
    /// Joiner only: store this key atomically, then call `stored(_:)`.
    case storeKey(GroupKey)
    /// Done: paired with `peerName`, whose identity `peer` proved itself.
    case paired(peerName: String, peer: PublicIdentity)
    /// Done: nothing changed.
    case failed(PairingFailure)
}

