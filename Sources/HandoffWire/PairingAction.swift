public enum PairingAction: Equatable, Sendable {
    /// Write these bytes to the connection.
    case send([UInt8])
    /// Print `Code: …` and ask the person; `peerName` is the other side's claimed name.
    case showCode(String, peerName: String)
    /// Joiner only: store this key atomically, then call `stored(_:)`.
    case storeKey(GroupKey)
    /// Done: paired with `peerName`.
    case paired(peerName: String)
    /// Done: nothing changed.
    case failed(PairingFailure)
}

