/// How the activity center's network is doing, as the status bar shows it.
public enum NetworkState: Equatable, Sendable {
    /// Joining the group; nothing sent yet.
    case starting
    /// Publishing and listening.
    case online
    /// Publishing and listening, but not on every path: "multicast unavailable (…): unicast only".
    case limited(String)
    /// Not reaching the network, and why (a sentence from the transport).
    case offline(String)
    /// This machine was removed from the group: it still hears the others for a while, but none
    /// of them hears it. The sentence says by whom and what to do; a removal is for good, so no
    /// later network state replaces it.
    case removed(String)

    /// The status bar's words: "starting…", "online", the limited path's warning, "offline".
    public var label: String {
        switch self {
        case .starting: "starting…"
        case .online: "online"
        case .limited(let warning): warning
        case .offline: "offline"
        case .removed: "removed from the group"
        }
    }
}
