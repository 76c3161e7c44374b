import BatonApp
import Dispatch
import FoundationEssentials
import Handoff
import Logging
import TerminalUI
import HandoffWire

/// Runs the app over a terminal backend and an activity center, as Bubble Tea's program runs
/// a model: key presses, resizes, ticks and network events become messages in one inbox;
/// each message goes through `BatonApp.update`, which alone changes the model; the commands
/// it returns are performed here, and what they come to arrives back in the inbox as messages.
///
/// It is also the glue the Handoff library calls: the responder that writes the session into
/// the current activity before a save and restores a continued one, the activity's delegate,
/// and the application delegate. None of those calls changes the model: each one posts a
/// message. Nothing here touches ncurses or a socket.
@MainActor
public final class Program: ApplicationDelegate, UserActivityResponder, UserActivityDelegate {
    public internal(set) var model: AppModel
    public let backend: any TerminalBackend
    public let center: ActivityCenter
    /// The activity that publishes the current session.
    public internal(set) var activity: UserActivity?
    let files: FileStore
    /// Where recovery copies of unsaved buffers go; nil: none are kept.
    let recovery: RecoveryStore?
    /// The copy last written (its location), to remove once the buffer is saved or discarded.
    var recoveryWritten: String?
    /// Orders the writes made off the main actor with those made on it and with removals.
    let recoveryWriter = RecoveryWriter()
    /// Numbers the writer's requests, in the order the main actor makes them.
    var recoveryGeneration: UInt64 = 0
    /// Set when the input closed (the terminal went away): the quit that follows keeps the copy.
    var keepRecoveryOnQuit = false
    /// How long after a change the recovery copy is written.
    public static let recoveryDelay = EditorUpkeep.recoveryDelay
    /// A buffer of at least this many bytes has its text joined off the main actor for the
    /// saves, and its bulk work held while keys arrive (`EditorUpkeep`).
    public static let joinOffMainActorSize = EditorUpkeep.largeSize
    /// While keys arrive in a large buffer, its bulk work waits for a pause of this long.
    public static let typingPause = EditorUpkeep.typingPause
    /// When the publish, the join and the recovery copy are due: the policy, without I/O.
    var upkeep: EditorUpkeep
    /// The one timer for `upkeep.nextDeadline`.
    lazy var upkeepTimer = DeadlineTimer(clock: clock, movesLater: true) { [weak self] in self?.upkeepDue() }
    /// The editor as it was when its text was last joined off the main actor; the buffer's
    /// text cache holds that text while nothing else was joined since.
    var joinedEditor: EditorState?
    /// Bumped when a new activity starts: a join still running for the one before is dropped.
    var joinGeneration = 0
    /// Gives back what a waiting program no longer uses (`baton`'s: malloc's free pages and the
    /// pages of its read-only mappings, whose bytes it returns), once it has been quiet a while
    /// (`QuietPages`); nil: never.
    public var giveBackPages: (@MainActor () -> Int)?
    var quietPages = QuietPages()
    lazy var quietTimer = DeadlineTimer(clock: clock) { [weak self] in self?.quietDue() }
    /// The once-a-second tick (`tickDue`).
    lazy var tickTimer = DeadlineTimer(clock: clock) { [weak self] in self?.tickDue() }
    /// Where the Program reads the time and waits: the system's, or a test's virtual one.
    public let clock: any HandoffClock
    let logger: Logger
    /// Every message the loop handles, in the order it handles them; open from `init`, so
    /// what is posted before `run` waits for it.
    let inbox: Inbox
    /// The loop is iterating the inbox (from its start until the model quits).
    var loopRunning = false
    /// A `.publish` the loop is holding until what is waiting has been applied: one save
    /// request per burst of input, however many keys it holds.
    var publishDue = false
    /// Messages applied since the loop last drew; under a stream of input that never pauses
    /// it still draws after `mostWithoutDrawing` of them.
    var appliedSinceDrawing = 0
    static let mostWithoutDrawing = 1000
    /// Whether a message applied since the last draw may have changed the screen: the
    /// acknowledgements each save brings (`.published`, an unchanged `.network`) do not, and
    /// drawing for them would cost a key's worth of work after every key.
    var drawDue = false
    /// The editor's rows of the last frame, so a key draws again only the lines it changed.
    let viewMemo = ViewMemo()
    var tasks: [Task<Void, Never>] = []
    /// Nearby changes reach the screen at most once per this interval (the first at once,
    /// the last always): with fifty peers ticking, redrawing on each would cost more than
    /// everything else the program does, for changes nobody can read that fast.
    let nearbyRefreshInterval: Duration
    var nearbyRefreshPending = false
    var lastNearbyRefresh: ContinuousClock.Instant?
    /// The continue under way, until its task ends (see Program+Continuing).
    var continuing: ContinueRun?
    /// How many continues were started, to tell a finished one from its successor.
    var continuesStarted = 0
    /// How a nearby activity is fetched and continued; nil: `center.continueActivity(_:progress:)`.
    /// Tests put a fetch here that takes as long as they say.
    var fetch: Fetch?
    /// The live session's open streams by link number, and the last number given.
    var liveLinks: [Int: LiveLink] = [:]
    /// Links asked to close, still sending what was asked before.
    var closingLiveLinks: [LiveLink] = []
    /// Links whose message went at once during the message being applied: told to the model
    /// (`.liveSent`) before that message's turn ends, not through the inbox.
    var liveSentAtOnce: [Int] = []
    /// What live peers are sent (and links closed), in order, held until the key is drawn.
    var liveDue: [AppCommand] = []
    var nextLiveLink = 0
    /// The activity last continued here (also one continued before the UI started): a live
    /// session with its source opens to it.
    public var lastContinued: UserActivity?
    /// The shell session chosen in the nearby list, which the terminal drives (or, with
    /// `follow`, watches) once this program has ended (`AppCommand.joinShell`); nil when none was.
    public internal(set) var chosenShell: (entry: NearbyActivity, follow: Bool)?
    /// Where what Ctrl-K cut is kept, so that it follows the person to the group's other
    /// machines; nil: the clipboard stays in this program.
    let clipboard: (any Clipboard)?
    /// Where the editor's display toggles are kept between sessions; nil: they are not.
    let displayPreference: (any DisplayPreference)?

    /// - Parameters:
    ///   - session: what to show first — a new counter or editor, or one a peer's activity described.
    ///   - logger: where diagnostics go (a log file; never the screen). Silent unless given.
    public init(
        backend: any TerminalBackend, center: ActivityCenter, session: Session, status: StatusInfo,
        files: FileStore = FileStore(), recovery: RecoveryStore? = nil, nearbyRefreshInterval: Duration = .milliseconds(250),
        clipboard: (any Clipboard)? = nil, displayPreference: (any DisplayPreference)? = nil,
        clock: any HandoffClock = SystemClock(),
        logger: Logger = Logger(label: "baton", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.clipboard = clipboard
        self.displayPreference = displayPreference
        self.clock = clock
        upkeep = EditorUpkeep(keepsCopies: recovery != nil)
        self.nearbyRefreshInterval = nearbyRefreshInterval
        self.backend = backend
        self.center = center
        self.files = files
        self.recovery = recovery
        self.logger = logger
        inbox = Inbox()
        model = AppModel(session: session, size: backend.size, status: status, now: clock.date)
    }

    /// Shows the session and handles messages until the model quits; returns after
    /// withdrawing. Runs once per Program.
    ///
    /// `opening` messages are handled first, before the session is published (e.g. the
    /// `.continued` of a session continued at launch, whose `.startActivity` then publishes it).
    public func run(opening: [AppMessage] = []) async {
        center.applicationDelegate = self
        if let recovery, case .editor(let editor) = model.session, editor.isDirty {
            // A buffer opened from a recovery copy: that copy is this program's now, to be
            // replaced as the text changes and removed by a save, even one that comes before
            // this program has written a copy of its own.
            recoveryWritten = recovery.location(for: editor.filePath.map(RecoveryStore.absolute))
            upkeep.hasCopy = true
        }
        if let clip = clipboard?.clip() { handle(.clipboard(clip)) }
        if let display = displayPreference?.display() { handle(.displayPreference(display)) }
        for message in opening { handle(message) }
        // A follower publishes nothing: the session it shows is another's.
        if activity == nil, model.handoffOff == nil, !model.followsOrWillFollow { startActivity() }
        listen()
        render()
        notePagesBusy()  // what it ran to start is due too
        // Everything waiting is applied before one draw and one save request: a burst of keys
        // (a paste into a terminal without bracketed paste, typing while a frame is written)
        // costs one frame, not one per key.
        loopRunning = true
        // What is posted while the loop waits is taken by a job of the main queue (one thread
        // woken, not two: see `Inbox`); the loop itself then waits for the end.
        inbox.drainWhileWaiting { [weak self] in
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.takeQueued() } }
        }
        while let message = await inbox.next() {
            // Input taken on the input thread (`takeInput`) may have quit already.
            if model.isQuitting { break }
            if !take(message, thenWaiting: inbox.waiting) { break }
        }
        loopRunning = false
        stop()
        await closeLiveLinks()
    }

    /// The loop's work for one message: update, commands, and a flush once nothing more waits
    /// (`waiting`: messages still to come after this one). False when the model quits.
    func take(_ message: AppMessage, thenWaiting waiting: Int) -> Bool {
        // A key typed right behind the one that opened a question answers it, however fast it
        // came (a typist ahead of the screen, ssh, a paste): keys are never dropped.
        if isKeyLike(message) { upkeep.inputTaken(at: clock.now) }
        if isBusyMessage(message) { notePagesBusy() }
        if case .inputClosed = message {
            writeRecoveryNow()
            keepRecoveryOnQuit = true
        }
        let unseen = changesNothingShown(message)
        apply(message, deferPublish: true)
        if model.isQuitting {
            sendLiveDue()
            return false
        }
        appliedSinceDrawing += 1
        if !unseen() { drawDue = true }
        if waiting == 0 || appliedSinceDrawing >= Self.mostWithoutDrawing {
            flush()
        }
        return true
    }

    /// Handles one message as the loop does: update, then its commands, then draw. What the
    /// commands come to arrives later, through the inbox. Public for tests.
    public func handle(_ message: AppMessage) {
        apply(message, deferPublish: false)
        render()
    }

    /// Update, then the commands; a `.publish`, and what goes to live peers (`isLiveOutput`),
    /// are held for `flush` when `deferPublish`.
    func apply(_ message: AppMessage, deferPublish: Bool) {
        // Ticks stop while nothing on screen ages: the model's clock is brought up to date before
        // anything else happens, or a notice shown now would count from the last tick and could
        // be gone at once (a problem after ten quiet seconds showed for under a second).
        if case .tick = message {} else if clock.date.timeIntervalSince(model.now) > 1 {
            apply(.tick(clock.date), deferPublish: deferPublish)
        }
        let replaced = blocksReplaced(by: message)
        let commands = BatonApp.update(&model, message)
        if let replaced { letGoInBackground(replaced) }
        switch message {
        case .liveOpened, .liveReceived, .liveEnded, .liveOpenFailed:
            logger.debug("\(message.kindName): live \(model.live.map { "\($0)" } ?? "none"); \(commands.count) commands")
        default:
            break
        }
        for command in commands {
            if deferPublish, command == .publish {
                publishDue = true
            } else if deferPublish, Self.isLiveOutput(command) {
                liveDue.append(command)
            } else {
                perform(command)
            }
        }
        // A send that went at once is acknowledged here: posted to the inbox, the acknowledgement
        // woke the main thread once a key for nothing else (strace of a followed editor).
        takeSentAtOnce(deferPublish: deferPublish)
    }

    /// Draws, then sends what live peers are due and performs the held `.publish`.
    ///
    /// The draw comes first: what a follower is sent (encoded, sealed, written, and the follower
    /// woken on a machine it may share) and the save the publish asks for (its hooks, and for a
    /// small state its encoding, sealing and signing) run after the key is on the screen.
    func flush() {
        appliedSinceDrawing = 0
        if drawDue { render() }
        sendLiveDue()
        let due = publishDue
        publishDue = false
        performUpkeep(upkeep.flushed(upkeepBuffer, publishDue: due, at: clock.now))
    }

    /// For `message`, about to be applied: a check, after it is, of whether it left everything
    /// the screen shows as it was. Only the acknowledgements of saves are told apart; any other
    /// message counts as a change.
    func changesNothingShown(_ message: AppMessage) -> () -> Bool {
        switch message {
        case .published:
            let before = model.publishProblem
            return { [unowned self] in model.publishProblem == before }
        case .network:
            let before = model.status.network
            return { [unowned self] in model.status.network == before }
        case .textRecut:
            // The same text in other blocks: nothing on the screen changes.
            return { true }
        case .liveSent:
            // A follower's acknowledgement, one per key typed while followed: drawing for it
            // drew every key twice. What it sends next is drawn already.
            return { true }
        default:
            return { false }
        }
    }

    func stop() {
        cancelContinue()
        upkeepTimer.stop()
        quietTimer.stop()
        tickTimer.stop()
        for task in tasks { task.cancel() }
        tasks.removeAll()
        inbox.finish()
    }

    func render() {
        appliedSinceDrawing = 0
        drawDue = false
        let (frame, cursor) = BatonApp.view(model, memo: viewMemo)
        backend.draw(frame, cursor: cursor)
        viewMemo.recycle(frame)
    }
}
