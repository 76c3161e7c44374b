import Handoff
import TerminalUI
import HandoffWire

/// The app as model / message / update / view, in the manner of Bubble Tea: `update` changes
/// the model for one message and returns the side effects as commands; `view` draws a frame.
/// Neither does any I/O.
public enum BatonApp {
    /// Applies `message` to `model` and returns what the Program should do.
    ///
    /// `.publish` comes first whenever the session's published state (type, title or
    /// userInfo, which includes the editor's cursor) changed.
    ///
    /// Peer text enters the model here, through `PeerText.visible`: the nearby items' titles and
    /// peer names, the names in `.continued` and `.continuedElsewhere` (and `Session`'s
    /// `continuedFrom`), so what the panels and the message line draw shows every invisible
    /// and bidi character; `ScreenBuffer` still makes controls inert in whatever it draws.
    @discardableResult
    public static func update(_ model: inout AppModel, _ message: AppMessage) -> [AppCommand] {
        // A session that is not handed off publishes nothing, so there is nothing to compare.
        let before = model.handoffOff == nil ? PublishedState(model.session) : nil
        var commands: [AppCommand]
        var mayPublish = true
        switch message {
        case .key(let key):
            commands = take(.key(key), &model)
        case .paste(let text):
            commands = take(.paste(text), &model)
        case .resize(let size):
            model.size = size
            model.keepCursorVisible(afterResize: true)
            commands = []
        case .tick(let date):
            model.now = date
            if let notice = model.notice, notice.isExpired(at: date) { model.notice = nil }
            if case .editor(var state) = model.session, state.history.isOpen {
                state.history.tick(date)
                model.session = .editor(state)
            }
            commands = liveTick(&model)
        case .nearbyChanged(let items):
            replaceNearby(with: items, &model)
            commands = []
        case .peersHeard(let count):
            model.status.peersHeard = max(0, count)
            commands = []
        case .network(let state):
            // A removal is for good: what the transport says later does not replace it.
            if case .removed = model.status.network {} else { model.status.network = state }
            commands = []
        case .published:
            model.publishProblem = nil
            commands = []
        case .textRecut(let buffer):
            if case .editor(var state) = model.session, state.buffer.takeBlocks(of: buffer) {
                model.session = .editor(state)
            }
            commands = []
            mayPublish = false
        case .publishFailed(let problem):
            model.publishProblem = problem
            commands = []
        case .continuedElsewhere(let peerName):
            model.show("Continued on \(PeerText.visible(peerName))")
            commands = []
        case .continued(let session, let peerName):
            // A live session this program took part in ends here: another one begins.
            let ending = endLive(&model)
            // The mouse is this person's, and the terminal reports it or not as the replaced
            // session asked: the continued one keeps that (it never travels).
            let mouse = model.session.editorState?.display.mouse ?? false
            model.session = session
            if case .editor(var state) = model.session, state.display.mouse != mouse {
                state.display.mouse = mouse
                model.session = .editor(state)
            }
            model.overlay = nil
            model.pendingSave = nil
            model.handoffOff = nil  // a new session, handed off like any other
            model.publishProblem = nil
            let place = model.session.editorState.map { $0.savePath.map { " — Ctrl-S saves to \($0)" } ?? " — Ctrl-S asks for a name" } ?? ""
            model.show("Continued from \(PeerText.visible(peerName))" + place)
            mayPublish = false  // a new activity, not a new revision of the replaced session's
            // The source keeps a live session going when it can: it follows, and may take it back.
            model.liveIntent = AppModel.LiveIntent(leads: true, mayTake: true)
            model.liveLeadRetry = nil
            commands = ending + [.startActivity, .openLive(activityID: nil, leads: true, mayTake: true)]
            // A counter has no use for the mouse: the terminal stops reporting it.
            if mouse, model.session.editorState == nil { commands.append(.mouseReporting(false)) }
            // Typed while a save of the replaced session was awaited: it goes to the new one,
            // whose `.startActivity` publishes it as it is after these keys.
            commands += takeHeldInput(&model)
        case .continueFailed(let reason):
            continueEnded(&model)
            model.show("Could not continue: \(reason)", kind: .problem)
            commands = []
        case .continueProgress(let progress):
            continueProgressed(progress, &model)
            commands = []
        case .continueWaited(let id, let elapsed):
            continueWaited(id: id, elapsed: elapsed, &model)
            commands = []
        case .handoffOff(let reason):
            model.handoffOff = reason
            commands = []
        case .fileSaved(let path, let stamp, let isReadOnly):
            commands = fileSaved(path: path, stamp: stamp, isReadOnly: isReadOnly, &model)
            commands += takeHeldInput(&model)
        case .fileSaveFailed(let reason):
            commands = fileSaveFailed(reason: reason, &model)
            commands += takeHeldInput(&model)
        case .saveNeedsConfirmation(let path, let changedOnDisk):
            commands = saveNeedsConfirmation(path: path, changedOnDisk: changedOnDisk, &model)
            commands += takeHeldInput(&model)
        case .saveReadOnly(let path):
            commands = saveReadOnly(path: path, &model)
            commands += takeHeldInput(&model)
        case .inputClosed:
            commands = model.isQuitting ? [] : quit(&model)
        case .displayPreference(let display):
            commands = []
            if case .editor(var state) = model.session {
                if state.continuedFrom == nil {
                    state.display = display
                } else {
                    // The sender's way of showing the text came with it; the mouse is this person's.
                    state.display.mouse = display.mouse
                }
                model.session = .editor(state)
                if display.mouse { commands = [.mouseReporting(true)] }
            }
        case .mouse(let mouse):
            commands = handleMouse(mouse, &model)
        case .clipboard(let clip):
            model.clipboard = clip
            // A Ctrl-K after this starts a new cut rather than adding to one from before.
            if case .editor(var state) = model.session {
                state.isGatheringCut = false
                if case .lines(let lines) = clip { state.cutLines = lines } else { state.cutLines = [] }
                model.session = .editor(state)
            }
            commands = []
        case .liveOpened(let link, let peerName, let opener):
            commands = liveOpened(link: link, peerName: peerName, opener: opener, &model)
        case .liveReceived(let link, let live):
            commands = liveReceived(link: link, live, &model)
        case .liveSent(let link):
            commands = liveSent(link: link, &model)
        case .liveEnded(let link, let problem):
            commands = liveEnded(link: link, problem: problem, &model)
        case .liveOpenFailed(let reason, let retry):
            commands = liveOpenFailed(reason, retry: retry, &model)
        case .follow(let activityID):
            commands = startFollowing(activityID: activityID, &model)
        }
        model.keepCursorVisible()
        // A follower shows another's session: it publishes nothing of it.
        if case .following = model.live { mayPublish = false }
        let changed = before.map { PublishedState(model.session) != $0 } ?? false
        if mayPublish, !model.isQuitting, model.handoffOff == nil, changed {
            commands.insert(.publish, at: 0)
        }
        if case .leading = model.live, !model.isQuitting { commands += gatherLiveChanges(publishedChanged: changed, &model) }
        return commands
    }

    /// A key or a paste: held while a save's outcome is awaited, else handled now.
    static func take(_ input: HeldInput, _ model: inout AppModel) -> [AppCommand] {
        if model.isQuitting { return [] }
        // Anything still held goes first, in order; this input waits behind it if it asks for a save.
        var commands = model.isAwaitingSave ? [] : takeHeldInput(&model)
        if model.isAwaitingSave {
            model.heldInput.append(input)
            return commands
        }
        if model.isQuitting { return commands }
        commands += handle(input, &model)
        return commands
    }

    static func handle(_ input: HeldInput, _ model: inout AppModel) -> [AppCommand] {
        switch input {
        case .key(let key): handleKey(key, &model)
        case .paste(let text): handlePaste(text, &model)
        }
    }

    /// Applies the input held while a save's outcome was awaited, in order, now that it came;
    /// stops where one of them asks for another save (the rest wait for that one's outcome).
    static func takeHeldInput(_ model: inout AppModel) -> [AppCommand] {
        var commands: [AppCommand] = []
        while !model.heldInput.isEmpty, !model.isAwaitingSave {
            if model.isQuitting {
                model.heldInput.removeAll()
                break
            }
            commands += handle(model.heldInput.removeFirst(), &model)
        }
        return commands
    }

    /// Draws the model: the frame to show and where the cursor goes (nil hides it).
    ///
    /// A `memo` kept from the last call lets the frame reuse the rows drawn then (see
    /// `ViewMemo`); the frame is the same with or without it.
    public static func view(_ model: AppModel, memo: ViewMemo? = nil) -> (frame: ScreenBuffer, cursor: CursorPosition?) {
        memo?.startFrame()
        var frame = memo?.blankFrame(size: model.size) ?? ScreenBuffer(size: model.size)
        let layout = model.layout
        guard model.size.width > 0, model.size.height > 0 else { return (frame, nil) }
        var cursor: CursorPosition?
        switch model.session {
        case .counter(let state):
            memo?.sweep(&frame)
            CounterView.draw(state, layout: layout, into: &frame)
        case .editor(let state):
            cursor = EditorView.draw(state, layout: layout, into: &frame, memo: memo)
        }
        // What follows draws on blank rows: those the text did not take are blanked.
        memo?.sweep(&frame)
        // Whether an overlay is drawn, and so decides where the cursor goes (nil: hidden).
        var overlayShown = model.overlay != nil
        switch model.overlay {
        case .nearby(let selectedID):
            NearbyPanel.draw(model.nearby, selectedID: selectedID, now: model.now, layout: layout, into: &frame)
        case .continuing(let state):
            if state.isShown { ContinuePanel.draw(state, layout: layout, into: &frame) }
            overlayShown = state.isShown
        case .help(let first):
            HelpPanel.draw(model.session.kind, from: first, layout: layout, into: &frame)
        case .replacing:
            // The match is selected in the text; the question is on the message line.
            overlayShown = false
        case .confirm, .prompt, nil:
            break
        }
        if overlayShown { cursor = nil }
        if let row = layout.messageRow {
            let promptCursor = MessageLine.draw(model, row: row, into: &frame, memo: memo)
            if overlayShown { cursor = promptCursor }
        }
        if let row = layout.statusRow {
            if layout.messageRow == nil, MessageLine.takesStatusRow(model, layout: layout) {
                let promptCursor = MessageLine.draw(model, row: row, into: &frame, compact: true, memo: memo)
                if overlayShown { cursor = promptCursor }
            } else {
                StatusBar.draw(model, row: row, into: &frame, memo: memo)
            }
        }
        return (frame, cursor)
    }
}
