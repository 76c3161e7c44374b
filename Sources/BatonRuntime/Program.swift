import BatonApp
import Foundation
import Handoff
import Logging
import TerminalUI
import HandoffWire
import HandoffStore
import PropertyList

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
    public private(set) var model: AppModel
    public let backend: any TerminalBackend
    public let center: ActivityCenter
    /// The activity that publishes the current session.
    public private(set) var activity: UserActivity?
    private let files: FileStore
    /// Where recovery copies of unsaved buffers go; nil: none are kept.
    private let recovery: RecoveryStore?
    /// The debounced write of the recovery copy, from when one is due until it is written.
    private var recoveryWrite: Task<Void, Never>?
    /// The copy last written (its location), to remove once the buffer is saved or discarded.
    private var recoveryWritten: String?
    /// The buffer version the last recovery copy holds: no copy is written again without a change.
    private var recoveryVersion: UInt64?
    /// Orders the writes made off the main actor with those made on it and with removals.
    private let recoveryWriter = RecoveryWriter()
    /// Numbers the writer's requests, in the order the main actor makes them.
    private var recoveryGeneration: UInt64 = 0
    /// Set when the input closed (the terminal went away): the quit that follows keeps the copy.
    private var keepRecoveryOnQuit = false
    /// How long after a change the recovery copy is written.
    public static let recoveryDelay: Duration = .seconds(1)
    /// A buffer of at least this many bytes has its text joined off the main actor for the
    /// saves, at most once per `joinInterval` while it changes.
    public static let joinOffMainActorSize = 1 << 20
    public static let joinInterval: Duration = .milliseconds(200)

    /// The wait before joining a buffer of `bytes`: `joinInterval`, or 1 ms per 20 KB of text
    /// when that is longer (0.8 s for 16 MB). The saves of such a state are about a second
    /// apart (1 ms per 25 KB of its UTF-16 encoding), so joining more often would only be
    /// copying 16 MB for no save.
    static func joinWait(bytes: Int) -> Duration {
        max(joinInterval, .milliseconds(bytes / 20_000))
    }
    /// The editor as it was when its text was last joined off the main actor; the buffer's
    /// text cache holds that text while nothing else was joined since.
    private var joinedEditor: EditorState?
    /// The next join, from its wait to its end.
    private var joining: Task<Void, Never>?
    /// A save published `joinedEditor` while the buffer had moved on: once the newest text is
    /// joined, another save is asked for.
    private var savedBehind = false

    /// While keys arrive in a buffer of `joinOffMainActorSize` or more, its bulk work (the join
    /// for the saves, the save's encoding and digest, the recovery copy: tens of milliseconds
    /// of CPU each at 16 MB) waits for a pause of this long, so no key is kept waiting behind it
    /// on a small machine.
    public static let typingPause: Duration = .milliseconds(300)
    /// The longest that work waits while the keys go on: a session typed into without a pause
    /// is still published, and its recovery copy written, this often.
    public static let longestHold: Duration = .seconds(5)
    /// When the last key or paste was taken.
    private var lastInputAt: ContinuousClock.Instant?
    /// Since when bulk work has been held for a pause, while it is.
    private var heldSince: ContinuousClock.Instant?
    /// The wait for the pause, while bulk work is held.
    private var holding: Task<Void, Never>?
    /// A publish was held for the pause.
    private var publishHeld = false
    let logger: Logger
    /// Every message the loop handles, in the order it handles them; open from `init`, so
    /// what is posted before `run` waits for it.
    private let messages: AsyncStream<AppMessage>
    let inbox: Inbox
    /// The loop is iterating the inbox (from its start until the model quits).
    private var loopRunning = false
    /// A `.publish` the loop is holding until what is waiting has been applied: one save
    /// request per burst of input, however many keys it holds.
    private var publishDue = false
    /// Messages applied since the loop last drew; under a stream of input that never pauses
    /// it still draws after `mostWithoutDrawing` of them.
    private var appliedSinceDrawing = 0
    static let mostWithoutDrawing = 1000
    /// Whether a message applied since the last draw may have changed the screen: the
    /// acknowledgements each save brings (`.published`, an unchanged `.network`) do not, and
    /// drawing for them would cost a key's worth of work after every key.
    private var drawDue = false
    /// The editor's rows of the last frame, so a key draws again only the lines it changed.
    private let viewMemo = ViewMemo()
    private var tasks: [Task<Void, Never>] = []
    /// Nearby changes reach the screen at most once per this interval (the first at once,
    /// the last always): with fifty peers ticking, redrawing on each would cost more than
    /// everything else the program does, for changes nobody can read that fast.
    private let nearbyRefreshInterval: Duration
    private var nearbyRefreshPending = false
    private var lastNearbyRefresh: ContinuousClock.Instant?
    /// The continue under way, until its task ends (see Program+Continuing).
    var continuing: ContinueRun?
    /// How many continues were started, to tell a finished one from its successor.
    var continuesStarted = 0
    /// How a nearby activity is fetched and continued; nil: `center.continueActivity(_:progress:)`.
    /// Tests put a fetch here that takes as long as they say.
    var fetch: Fetch?
    /// The store whose `clipboard` key holds what Ctrl-K cut, so that it follows the person to
    /// the group's other machines; nil: the clipboard stays in this program.
    let clipboardStore: KeyValueStore?
    /// The key of the clipboard in its store.
    public static let clipboardKey = "clipboard"

    /// - Parameters:
    ///   - session: what to show first — a new counter or editor, or one a peer's activity described.
    ///   - logger: where diagnostics go (a log file; never the screen). Silent unless given.
    public init(
        backend: any TerminalBackend, center: ActivityCenter, session: Session, status: StatusInfo,
        files: FileStore = FileStore(), recovery: RecoveryStore? = nil, nearbyRefreshInterval: Duration = .milliseconds(250),
        clipboard: KeyValueStore? = nil,
        logger: Logger = Logger(label: "baton", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.clipboardStore = clipboard
        self.nearbyRefreshInterval = nearbyRefreshInterval
        self.backend = backend
        self.center = center
        self.files = files
        self.recovery = recovery
        self.logger = logger
        let (messages, continuation) = AsyncStream.makeStream(of: AppMessage.self)
        self.messages = messages
        inbox = Inbox(continuation)
        model = AppModel(session: session, size: backend.size, status: status, now: Date())
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
        }
        if let lines = clipboardLines() { handle(.clipboard(lines)) }
        for message in opening { handle(message) }
        if activity == nil, model.handoffOff == nil { startActivity() }
        listen()
        render()
        // Everything waiting is applied before one draw and one save request: a burst of keys
        // (a paste into a terminal without bracketed paste, typing while a frame is written)
        // costs one frame, not one per key.
        loopRunning = true
        for await message in messages {
            // Input taken on the input thread (`takeInput`) may have quit already.
            if model.isQuitting { break }
            inbox.taken()
            if !take(message, thenWaiting: inbox.waiting) { break }
        }
        loopRunning = false
        stop()
    }

    /// The loop's work for one message: update, commands, and a flush once nothing more waits
    /// (`waiting`: messages still to come after this one). False when the model quits.
    private func take(_ message: AppMessage, thenWaiting waiting: Int) -> Bool {
        // A key typed right behind the one that opened a question answers it, however fast it
        // came (a typist ahead of the screen, ssh, a paste): keys are never dropped.
        if isKeyLike(message) { lastInputAt = .now }
        if case .inputClosed = message {
            writeRecoveryNow()
            keepRecoveryOnQuit = true
        }
        let unseen = changesNothingShown(message)
        apply(message, deferPublish: true)
        if model.isQuitting { return false }
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

    /// Update, then the commands; a `.publish` is held for `flush` when `deferPublish`.
    private func apply(_ message: AppMessage, deferPublish: Bool) {
        // Ticks stop while nothing on screen ages: the model's clock is brought up to date before
        // anything else happens, or a notice shown now would count from the last tick and could
        // be gone at once (a problem after ten quiet seconds showed for under a second).
        if case .tick = message {} else if Date().timeIntervalSince(model.now) > 1 {
            apply(.tick(Date()), deferPublish: deferPublish)
        }
        let commands = BatonApp.update(&model, message)
        for command in commands {
            if deferPublish, command == .publish {
                publishDue = true
            } else {
                perform(command)
            }
        }
    }

    /// Performs the held `.publish` and draws.
    ///
    /// The draw comes first: the save the publish asks for (its hooks, and for a small state its
    /// encoding, sealing and signing) runs after the key is on the screen.
    private func flush() {
        appliedSinceDrawing = 0
        if drawDue { render() }
        if isTypingIntoLargeBuffer {
            if publishDue { publishHeld = true }
            publishDue = false
            holdForPause()
            return
        }
        if publishDue {
            publishDue = false
            publishHeld = false
            perform(.publish)
        } else {
            publishHeldWhenReady()
        }
        scheduleRecovery()
        joinTextSoon()
    }

    // MARK: Bulk work held while typing into a large buffer

    /// Keys came within `typingPause` into a buffer whose bulk work is costly.
    private var isTypingIntoLargeBuffer: Bool {
        guard case .editor(let editor) = model.session, editor.buffer.utf8Count >= Self.joinOffMainActorSize,
              let lastInputAt else { return false }
        return ContinuousClock.now - lastInputAt < Self.typingPause
    }

    /// Waits for a pause in the keys (or `longestHold`), then does what was held: the text is
    /// joined first, so the save asked for after it publishes the newest text, then the
    /// recovery copy is due.
    private func holdForPause() {
        if heldSince == nil { heldSince = .now }
        guard holding == nil else { return }
        holding = Task { [weak self] in
            while let self, !Task.isCancelled {
                let now = ContinuousClock.now
                let due = min((self.lastInputAt ?? now) + Program.typingPause, (self.heldSince ?? now) + Program.longestHold)
                if due <= now { break }
                try? await Task.sleep(until: due)
            }
            guard let self, !Task.isCancelled else { return }
            self.holding = nil
            self.heldSince = nil
            self.joinTextSoon(wait: .zero)
            // At once when there was nothing to join (the text is kept as it is).
            self.publishHeldWhenReady()
            // The copy is due now, also when the keys went on past `longestHold`.
            self.recoveryWrite?.cancel()
            self.recoveryWrite = nil
            self.scheduleRecovery(now: true)
        }
    }

    /// Sends the publish held for a pause once neither the pause (`holding`) nor the join after
    /// it (`joining`) is under way, so that it carries the newest text.
    private func publishHeldWhenReady() {
        guard publishHeld, holding == nil, joining == nil else { return }
        publishHeld = false
        perform(.publish)
    }

    /// For `message`, about to be applied: a check, after it is, of whether it left everything
    /// the screen shows as it was. Only the acknowledgements of saves are told apart; any other
    /// message counts as a change.
    private func changesNothingShown(_ message: AppMessage) -> () -> Bool {
        switch message {
        case .published:
            let before = model.publishProblem
            return { [unowned self] in model.publishProblem == before }
        case .network:
            let before = model.status.network
            return { [unowned self] in model.status.network == before }
        default:
            return { false }
        }
    }

    // MARK: The text of a large buffer, joined for the saves

    /// While a large buffer changes, its text is made into one string (what the save's
    /// userInfo holds) on a detached task every `joinWait(bytes:)`, from a snapshot of the editor:
    /// 16 MB of it is a copy and 4,000 fresh pages, which a key would otherwise wait for at
    /// every save.
    private func joinTextSoon(wait: Duration? = nil) {
        guard joining == nil, case .editor(let editor) = model.session,
              editor.buffer.utf8Count >= Self.joinOffMainActorSize, !editor.buffer.isTextKept else { return }
        joining = Task { [weak self] in
            try? await Task.sleep(for: wait ?? Program.joinWait(bytes: editor.buffer.utf8Count))
            guard let self else { return }
            guard !Task.isCancelled, case .editor(let editor) = self.model.session else {
                self.joining = nil
                return
            }
            let buffer = editor.buffer
            await BackgroundWork.run { _ = buffer.text }
            guard !Task.isCancelled else { return }
            self.joining = nil
            self.joinedEditor = editor
            if self.publishHeld, self.holding == nil {
                // The publish held for the pause: it goes out with the text just joined.
                self.savedBehind = false
                self.publishHeldWhenReady()
            } else if self.savedBehind, case .editor(let now) = self.model.session, now.buffer.version == buffer.version {
                // The saves while it changed published an earlier text: this one is the newest.
                self.savedBehind = false
                self.activity?.needsSave = true
            }
            if self.holding == nil { self.joinTextSoon() }
        }
    }

    // MARK: Recovery copies

    /// While the editor has unsaved changes, its recovery copy is written within
    /// `recoveryDelay` of a change (one write for any number of changes meanwhile), or for a
    /// large buffer at the next pause in typing (`typingPause`, at most `longestHold` away);
    /// once it is clean (saved) the copy is removed.
    ///
    /// The copy (a snapshot of the buffer, which shares its text) is joined, encoded and
    /// written on a detached task, so keys are not kept waiting behind the text of 16 MB made
    /// into one string, its JSON and its fsync; the next write is due only after it is done,
    /// and only if the text changed meanwhile.
    private func scheduleRecovery(now: Bool = false) {
        guard recovery != nil else { return }
        guard case .editor(let editor) = model.session, editor.isDirty else {
            recoveryWrite?.cancel()
            recoveryWrite = nil
            removeRecovery()
            return
        }
        guard recoveryWrite == nil, editor.buffer.version != recoveryVersion else { return }
        recoveryWrite = Task { [weak self] in
            if !now { try? await Task.sleep(for: Program.recoveryDelay) }
            guard !Task.isCancelled, let self else { return }
            if !now, self.isTypingIntoLargeBuffer, self.holding != nil {
                // Written at the pause the held work waits for, not between two keys.
                self.recoveryWrite = nil
                return
            }
            guard let (request, generation) = self.recoveryRequest() else {
                self.recoveryWrite = nil
                return
            }
            let (recovery, writer) = (self.recovery!, self.recoveryWriter)
            let result = await BackgroundWork.run {
                Result { try writer.write(request.copy(), to: recovery, generation: generation) }
            }
            self.reportRecoveryWrite(result)
            guard !Task.isCancelled else { return }
            self.recoveryWrite = nil
            self.scheduleRecovery()
        }
    }

    /// Writes the recovery copy now, on the main actor, when the editor has unsaved changes
    /// (on SIGHUP and SIGTERM, and when input closes): it is done when this returns.
    public func writeRecoveryNow() {
        guard let recovery, let (request, generation) = recoveryRequest() else { return }
        reportRecoveryWrite(Result { try recoveryWriter.write(request.copy(), to: recovery, generation: generation) })
    }

    /// What a recovery copy is made of: the buffer itself (a snapshot that shares its text),
    /// whose text is joined where the copy is written, off the main actor when that is.
    private struct RecoveryRequest: Sendable {
        var path: String?
        var name: String?
        var savedAt: Date
        var buffer: TextBuffer

        func copy() -> RecoveryStore.Copy {
            RecoveryStore.Copy(path: path, name: name, savedAt: savedAt, text: buffer.textWithoutKeeping)
        }
    }

    /// The copy to write now and its place among the writer's requests; nil when the editor
    /// has no unsaved changes.
    private func recoveryRequest() -> (RecoveryRequest, UInt64)? {
        guard let recovery, case .editor(let editor) = model.session, editor.isDirty else { return nil }
        let path = editor.filePath.map(RecoveryStore.absolute)
        let copy = RecoveryRequest(path: path, name: editor.fileName, savedAt: Date(), buffer: editor.buffer)
        let location = recovery.location(for: path)
        if let previous = recoveryWritten, previous != location { removeRecovery() }
        recoveryVersion = editor.buffer.version
        recoveryGeneration += 1
        // Taken as written from now on: a removal asked for before the write is done is
        // ordered after it by the writer.
        recoveryWritten = location
        return (copy, recoveryGeneration)
    }

    private func reportRecoveryWrite(_ result: Result<Bool, any Error>) {
        if case .failure(let error) = result { logger.warning("recovery copy not written: \(error)") }
    }

    private func removeRecovery() {
        recoveryVersion = nil
        guard let written = recoveryWritten else { return }
        recoveryGeneration += 1
        recoveryWriter.remove(written, generation: recoveryGeneration)
        recoveryWritten = nil
    }

    private func isKeyLike(_ message: AppMessage) -> Bool {
        switch message {
        case .key, .paste: true
        default: false
        }
    }

    // MARK: Inputs

    /// The message of one input event.
    private static func message(for event: TerminalEvent) -> AppMessage {
        switch event {
        case .key(let key): .key(key)
        case .paste(let text): .paste(text)
        case .resize(let size): .resize(size)
        }
    }

    /// Posts a batch of input behind what waits in the inbox.
    private func post(_ batch: [TerminalEvent]) {
        for event in batch {
            inbox.yield(Self.message(for: event))
        }
    }

    /// A batch of input, on the input thread as a job of the main queue (`DispatchQueue.main.sync`
    /// runs it there when the main queue is free, and waits for it otherwise). With nothing waiting
    /// in the inbox, the loop is idle: the batch is taken here as the loop would take it, drawn
    /// once, and no other thread wakes. Otherwise it goes behind what waits, in order.
    private func takeInput(_ batch: [TerminalEvent]) {
        guard loopRunning, !model.isQuitting, inbox.waiting == 0 else {
            post(batch)
            return
        }
        let messages = batch.map(Self.message(for:))
        for (index, message) in messages.enumerated() {
            guard take(message, thenWaiting: messages.count - index - 1 + inbox.waiting) else {
                inbox.finish()  // quitting: the loop ends, and stops the program
                return
            }
        }
    }

    private func listen() {
        // Input straight from the input thread where the backend allows it: one thread fewer to
        // wake between a key and the screen (see `takeInput`). What was read before comes first.
        if let direct = backend as? any DirectInputBackend,
           let earlier = direct.handInput(to: { [weak self] batch in
               DispatchQueue.main.sync { MainActor.assumeIsolated { self?.takeInput(batch) } }
           }) {
            for batch in earlier { post(batch) }
        }
        let keys = backend.events()
        tasks.append(Task { [weak self, inbox, logger] in
            for await batch in keys {
                self?.post(batch)
            }
            // Cancelled by `stop` is not closed: the loop has already ended.
            guard !Task.isCancelled else { return }
            logger.info("input closed")
            inbox.yield(.inputClosed)
        })
        let events = center.events()
        tasks.append(Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.translate(event)
            }
        })
        if let changes = clipboardStore?.changes() {
            tasks.append(Task { [weak self, inbox] in
                for await change in changes where change.keys.contains(Self.clipboardKey) && change.reason != .quotaViolation {
                    guard let lines = self?.clipboardLines() else { continue }
                    inbox.yield(.clipboard(lines))
                }
            })
        }
        // Ages and notices change with time, and a pause ends a run of typing: tick only
        // while the model wants it.
        tasks.append(Task { [weak self, inbox] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self else { return }
                if self.model.wantsTicks { inbox.yield(.tick(Date())) }
            }
        })
        // What was heard before the UI started (e.g. while continuing at launch).
        inbox.yield(.nearbyChanged(continuableItems()))
        inbox.yield(.peersHeard(center.directory.peerNames.count))
    }

    private func translate(_ event: ActivityCenter.Event) {
        switch event {
        case .nearbyChanged:
            refreshNearby()
        case .published(let record):
            logger.info("published \(record.activityType) revision \(record.revision)")
            inbox.yield(.published)
            if case .offline = model.status.network {} else { inbox.yield(.network(Self.networkState(center.transport.status))) }
        case .saveFailed(let type, let error):
            logger.warning("not published \(type): \(error)")
            inbox.yield(.publishFailed(error.description))
        case .continued:
            break  // userActivityWasContinued tells us, as the activity's delegate
        case .sendFailed(let error):
            logger.warning("send failed: \(error)")
            switch error {
            case .closed, .offline:
                inbox.yield(.network(.offline(error.description)))
            case .sendFailed, .datagramTooLarge:
                break  // one destination or one datagram: the transport's status says what is left
            }
        case .otherKeyHeard(let sources):
            logger.notice("datagrams under another group key from \(sources.map(PeerText.visible).joined(separator: ", "))")
        case .oldProtocolHeard(let sources):
            logger.notice("protocol 2 datagrams from \(sources.map(PeerText.visible).joined(separator: ", ")): update Baton there")
        case .membershipChanged(let change):
            logger.notice("devices changed\(change.newKey == nil ? "" : ", and the group key")")
        case .transportChanged(let status):
            logger.notice("network: \(status)")
            if case .offline = model.status.network {} else { inbox.yield(.network(Self.networkState(status))) }
        }
    }

    /// Online, or limited with the transport's warning when a path is down.
    public static func networkState(_ status: TransportStatus) -> NetworkState {
        status.warning.map { .limited($0) } ?? .online
    }

    private func refreshNearby() {
        guard !nearbyRefreshPending else { return }
        nearbyRefreshPending = true
        let now = ContinuousClock.now
        let delay = lastNearbyRefresh.map { $0 + nearbyRefreshInterval - now } ?? .zero
        Task { [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard let self else { return }
            self.nearbyRefreshPending = false
            self.lastNearbyRefresh = ContinuousClock.now
            self.inbox.yield(.nearbyChanged(self.continuableItems()))
            self.inbox.yield(.peersHeard(self.center.directory.peerNames.count))
        }
    }

    private func continuableItems() -> [NearbyItem] {
        NearbyItem.items(center.continuable)
    }

    /// The clipboard's lines in its store, when it holds an array of strings there.
    private func clipboardLines() -> [String]? {
        guard let array = clipboardStore?.array(forKey: Self.clipboardKey) else { return nil }
        let lines = array.compactMap(\.stringValue)
        return lines.count == array.count ? lines : nil
    }

    // MARK: Commands

    private func perform(_ command: AppCommand) {
        switch command {
        case .publish:
            guard model.handoffOff == nil else { return }
            if activity?.activityType != model.session.activityType { startActivity() }
            activity?.needsSave = true
        case .startActivity:
            startActivity()
        case .continueActivity(let id):
            // The list on screen may be a news frame behind: continue the newest revision.
            center.takeInHeard()
            guard let entry = center.nearby.first(where: { $0.id == id }) else {
                inbox.yield(.continueFailed("That activity is no longer nearby."))
                return
            }
            startContinue(entry)
        case .cancelContinue:
            cancelContinue()
        case .keepClipboard(let lines):
            do {
                try clipboardStore?.set(.array(lines.map(PropertyListValue.string)), forKey: Self.clipboardKey)
            } catch {
                logger.warning("the clipboard stays on this machine: \(error)")
            }
        case .saveFile(let path, let text, let replace, let expecting):
            do {
                switch try files.save(path: path, text: text, replaceExisting: replace, expecting: expecting) {
                case .saved:
                    inbox.yield(.fileSaved(path: path, stamp: files.stamp(path: path), isReadOnly: files.isReadOnly(path: path)))
                case .needsConfirmation: inbox.yield(.saveNeedsConfirmation(path: path))
                case .readOnly: inbox.yield(.saveReadOnly(path: path))
                case .changedOnDisk: inbox.yield(.saveNeedsConfirmation(path: path, changedOnDisk: true))
                }
            } catch {
                inbox.yield(.fileSaveFailed(error.description))
            }
        case .quit:
            // The model is quitting (update saw to that) and the loop ends after this message;
            // what is left is to say in the log what stays unsaved.
            if case .editor(let editor) = model.session, editor.isDirty {
                logger.warning("quit with unsaved changes in \(editor.fileName ?? "an unnamed buffer")")
            }
            // Quitting discards the changes: their recovery copy goes with them.
            recoveryWrite?.cancel()
            recoveryWrite = nil
            if let recovery, !keepRecoveryOnQuit, case .editor(let editor) = model.session {
                removeRecovery()
                if editor.isDirty { recovery.remove(path: editor.filePath.map(RecoveryStore.absolute)) }
            }
        }
    }

    // MARK: The current activity

    /// Makes a new activity for the session's type current (the previous one is withdrawn).
    private func startActivity() {
        activity?.invalidate()
        joining?.cancel()
        joining = nil
        // The text as opened (or continued) is at hand: until the first join, a save publishes
        // that rather than joining the newest text on the main actor (the newest follows).
        if case .editor(let editor) = model.session, editor.buffer.isTextKept {
            joinedEditor = editor
        } else {
            joinedEditor = nil
        }
        savedBehind = false
        let new = UserActivity(activityType: model.session.activityType, center: center)
        new.responder = self
        new.delegate = self
        activity = new
        do {
            try new.becomeCurrent()
        } catch {
            logger.error("cannot publish: \(error)")
            inbox.yield(.publishFailed(error.description))
        }
    }

    private func stop() {
        cancelContinue()
        holding?.cancel()
        holding = nil
        for task in tasks { task.cancel() }
        tasks.removeAll()
        inbox.finish()
    }

    private func render() {
        appliedSinceDrawing = 0
        drawDue = false
        let (frame, cursor) = BatonApp.view(model, memo: viewMemo)
        backend.draw(frame, cursor: cursor)
        viewMemo.recycle(frame)
    }

    // MARK: UserActivityResponder, UserActivityDelegate

    public func updateUserActivityState(_ activity: UserActivity) {
        activity.title = model.session.title
        if case .editor(let editor) = model.session, editor.buffer.utf8Count >= Self.joinOffMainActorSize,
           !editor.buffer.isTextKept, let joined = joinedEditor, joined.buffer.isTextKept,
           joined.filePath == editor.filePath, joined.fileName == editor.fileName {
            // A large buffer whose newest text is not joined yet: the editor as of the last
            // join (text, cursor and undo history together, at most a join interval old) goes
            // out now, and the newest follows once it is joined (`joinTextSoon`).
            activity.userInfo = Session.editor(joined).userInfo
            savedBehind = true
            return
        }
        activity.userInfo = model.session.userInfo
    }

    /// Posts the continued session as `.continued`: the center calls this from inside
    /// `continueActivity`, which the Program calls while performing a command, so changing
    /// the model here would run update inside update.
    public func restoreUserActivityState(_ activity: UserActivity) {
        let peerName = activity.peer.map { PeerText.visible($0.name) }
        guard let session = Session(activityType: activity.activityType, userInfo: activity.userInfo, from: peerName)
        else { return }
        inbox.yield(.continued(session, from: peerName ?? "a peer"))
    }

    public func userActivityWasContinued(_ activity: UserActivity, by peer: PeerInfo) {
        let name = PeerText.visible(peer.name)
        logger.info("continued on \(name)")
        inbox.yield(.continuedElsewhere(peerName: name))
    }

    // MARK: ApplicationDelegate

    public func `continue`(_ activity: UserActivity, restorationHandler: ([any UserActivityResponder]) -> Void) -> Bool {
        guard Session(activityType: activity.activityType, userInfo: activity.userInfo, from: activity.peer?.name) != nil else {
            return false
        }
        restorationHandler([self])
        return true
    }

    public func didFailToContinue(activityType: String, error: HandoffError) {
        logger.warning("continue of \(PeerText.visible(activityType)) failed: \(error)")
        // A continue of ours reports its own end, once (Program+Continuing).
        guard continuing == nil else { return }
        inbox.yield(.continueFailed(error.description))
    }
}
