/// The part this program takes in a live session (docs/PROTOCOL.md, section 19): the one who
/// types, with the machines that follow; or a follower, which shows the session as it
/// changes elsewhere and may take the baton back.
public enum LiveRole: Equatable, Sendable {
    /// This program has the session; these follow it.
    case leading([LiveFollower])
    /// This program shows the session of another.
    case following(LiveFollowing)

    /// The follower's side, when following.
    public var following: LiveFollowing? {
        if case .following(let state) = self { state } else { nil }
    }

    /// The followers, when leading.
    public var followers: [LiveFollower] {
        if case .leading(let followers) = self { followers } else { [] }
    }
}

/// One follower of the session this program leads, and what it has been sent.
public struct LiveFollower: Equatable, Sendable {
    /// The stream to it, as the Program numbers them.
    public let link: Int
    /// Its machine, made visible (`PeerText.visible`).
    public var peerName: String
    /// Whether it may take the baton (the machine the session came from).
    public var mayTake: Bool
    /// What to send it next: the lines changed since its last message, or the whole state.
    var pending: Pending = .whole
    /// The revision it was last sent, and the cursor in it.
    var revision = 0
    var cursor: TextPosition?
    /// A message to it is on its way: changes gather until the Program says it went.
    var isSending = false

    enum Pending: Equatable, Sendable {
        case nothing
        case lines(LineChanges)
        case whole
    }

    public init(link: Int, peerName: String, mayTake: Bool) {
        self.link = link
        self.peerName = peerName
        self.mayTake = mayTake
    }
}

/// Following another machine's session.
public struct LiveFollowing: Equatable, Sendable {
    /// The stream to the leader.
    public let link: Int
    /// The leader's machine, made visible.
    public var peerName: String
    /// Whether this program may take the baton back (Ctrl-T, `t`).
    public var mayTake: Bool
    /// The activity the leader publishes: what to open again after a drop.
    public var activityID: String?
    /// The revision shown; nil until the first state came.
    public var revision: Int?
    /// A take asked for and not yet answered.
    public var isTaking = false
    /// A `resync` sent and no `state` since: no other is sent meanwhile.
    var resyncAsked = false
    /// This program gave the baton on this link and the taker has sent nothing since: a
    /// `resync` from it (a change before the take did not fit) is answered with the whole state
    /// and `given` again, or both ends would follow each other.
    var gave = false
    /// Why the link to the leader is down, while it is; and when to try again.
    public var linkProblem: String?
    var retryAt: Double?
    var retries = 0
    /// The leader ended the session (it quit, or went on to another): no more tries; the
    /// take key keeps what is shown here as this program's own.
    public var leaderEnded = false

    public init(link: Int, peerName: String, mayTake: Bool, activityID: String?) {
        self.link = link
        self.peerName = peerName
        self.mayTake = mayTake
        self.activityID = activityID
    }

    /// The line that says whose session this is and how to take it back with `takeKey`.
    public func line(takeKey: String) -> String {
        if leaderEnded {
            return mayTake ? "Following \(peerName) — it ended the session · \(takeKey) makes it yours" : "Following \(peerName) — it ended the session"
        }
        if let linkProblem {
            return retryAt == nil ? "Following \(peerName) — \(linkProblem)" : "Following \(peerName) — link lost (\(linkProblem)); trying again"
        }
        if isTaking { return "Following \(peerName) — taking the baton…" }
        return mayTake ? "Following \(peerName) — read-only · \(takeKey) takes the baton back" : "Following \(peerName) — read-only"
    }
}
