/// What the status bar says about this peer and its network.
public struct StatusInfo: Equatable, Sendable {
    /// This peer's name, e.g. `alice@laptop`.
    public var peerName: String
    /// Where it publishes, e.g. `239.255.77.88:47788 on eth0`.
    public var endpoint: String
    /// How the network is doing.
    public var network: NetworkState
    /// How many other peers were heard recently.
    public var peersHeard: Int

    /// Status for `peerName` publishing on `endpoint`.
    public init(peerName: String, endpoint: String, network: NetworkState = .starting, peersHeard: Int = 0) {
        self.peerName = peerName
        self.endpoint = endpoint
        self.network = network
        self.peersHeard = peersHeard
    }
}
