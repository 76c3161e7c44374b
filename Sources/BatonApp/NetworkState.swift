/// How the activity center's network is doing, as the status bar shows it.
public enum NetworkState: Equatable, Sendable {
    /// Joining the group; nothing sent yet.
    case starting
    /// Publishing and listening.
    case online
    /// Not reaching the network, and why (a sentence from the transport).
    case offline(String)

    /// The status bar's words: "starting…", "online", "offline: why".
    public var label: String {
        switch self {
        case .starting: "starting…"
        case .online: "online"
        case .offline: "offline"
        }
    }
}
