import FoundationEssentials
import TerminalUI

/// Everything the app shows and remembers; changed only by `BatonApp.update`.
public struct AppModel: Equatable, Sendable {
    /// The counter or the editor.
    public var session: Session
    /// The terminal's size.
    public var size: TerminalSize
    /// This peer and its network, for the status bar.
    public var status: StatusInfo
    /// Continuable activities from peers, newest first.
    public var nearby: [NearbyItem]
    /// The nearby list or a prompt, which takes the keys while it is open.
    public var overlay: Overlay?
    /// A transient line, e.g. "Continued on bob@desk".
    public var notice: Notice?
    /// Why the last publish failed, shown until one succeeds.
    public var publishProblem: String?
    /// Why this session is not handed off at all (its file is over the state limit), shown
    /// while it lasts; nil when it is handed off. The Program publishes nothing meanwhile.
    public var handoffOff: String?
    /// A save asked for and not yet answered.
    public var pendingSave: PendingSave?
    /// Keys and pastes that arrived while a save's outcome was awaited (`isAwaitingSave`), in
    /// order; applied as soon as the outcome is (see `HeldInput`).
    public var heldInput: [HeldInput] = []
    /// The time, as of the last tick.
    public var now: Date
    /// Set when the app has asked to quit.
    public var isQuitting: Bool
    /// What Ctrl-K (or Alt-6) took last and Ctrl-U pastes: kept in the key-value store, so
    /// that it follows the person to the group's other machines (`AppCommand.keepClipboard`,
    /// `AppMessage.clipboard`).
    public var clipboard = Clip.empty
    /// The live session this program leads or follows, if any.
    public var live: LiveRole?
    /// A live stream asked for with `.openLive` and not open yet: whether this program leads it.
    var liveIntent: LiveIntent?
    /// After a continue, the stream to the source could not be opened yet: when to try again
    /// (seconds since the reference date) and how many tries were made.
    var liveLeadRetry: LiveLeadRetry?

    struct LiveLeadRetry: Equatable, Sendable {
        var at: Double
        var tries: Int
    }
    /// Whether this program follows another's session, or has asked to.
    public var followsOrWillFollow: Bool { live?.following != nil || liveIntent?.leads == false }
    /// Streams another machine opened, waiting for its hello: the peer's name by link.
    var liveWaiting: [Int: String] = [:]

    struct LiveIntent: Equatable, Sendable {
        var leads: Bool
        var mayTake: Bool
        /// The activity a follower opens to, to open again after a drop.
        var activityID: String? = nil
    }

    /// A model showing `session` at `size`, with nothing nearby and nothing open.
    public init(session: Session, size: TerminalSize, status: StatusInfo, now: Date) {
        self.session = session
        self.size = size
        self.status = status
        self.nearby = []
        self.overlay = nil
        self.notice = nil
        self.publishProblem = nil
        self.handoffOff = nil
        self.pendingSave = nil
        self.now = now
        self.isQuitting = false
        keepCursorVisible()
    }

    /// Whether a save was asked for and its outcome has not come back yet: it may open a
    /// question, which the keys typed meanwhile are for.
    public var isAwaitingSave: Bool {
        pendingSave != nil && overlay == nil
    }

    /// The notice to show at `now`, nil when there is none or it has expired.
    public var visibleNotice: Notice? {
        guard let notice, !notice.isExpired(at: now) else { return nil }
        return notice
    }

    /// Whether the Program should send `.tick` every second: a notice or a nearby age is
    /// shown, or a run of typing is open (a pause in it starts a new undo step).
    public var wantsTicks: Bool {
        notice != nil || !nearby.isEmpty || session.editorState?.history.isOpen == true
            || live?.following?.linkProblem != nil || liveLeadRetry != nil
    }

    /// Shows `text` as a notice from now.
    mutating func show(_ text: String, kind: Notice.Kind = .info) {
        notice = Notice(text, kind: kind, shownAt: now)
    }
}
