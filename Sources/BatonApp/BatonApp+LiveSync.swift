import PropertyList

extension BatonApp {
    /// After every message while leading: the lines this message changed join what each
    /// follower is owed, and a follower with nothing on its way is sent it now.
    static func gatherLiveChanges(publishedChanged: Bool, _ model: inout AppModel) -> [AppCommand] {
        guard case .leading(var followers) = model.live else { return [] }
        if case .editor(var state) = model.session {
            let changes = state.buffer.takeLineChanges()
            model.session = .editor(state)
            if !changes.isEmpty {
                for index in followers.indices {
                    switch followers[index].pending {
                    case .nothing: followers[index].pending = .lines(changes)
                    case .lines(let owed): followers[index].pending = .lines(owed.then(changes))
                    case .whole: break
                    }
                }
            }
        } else if publishedChanged {
            for index in followers.indices { followers[index].pending = .whole }
        }
        model.live = .leading(followers)
        return syncFollowers(&model)
    }

    /// Sends each follower that has nothing on its way what it is owed.
    static func syncFollowers(_ model: inout AppModel) -> [AppCommand] {
        guard case .leading(var followers) = model.live else { return [] }
        var commands: [AppCommand] = []
        for index in followers.indices where !followers[index].isSending {
            guard let message = nextMessage(for: &followers[index], model.session) else { continue }
            followers[index].isSending = true
            commands.append(.liveSend(link: followers[index].link, message))
        }
        model.live = .leading(followers)
        return commands
    }

    /// What `follower` is owed of `session`, nil when nothing; marks it sent.
    static func nextMessage(for follower: inout LiveFollower, _ session: Session) -> LiveMessage? {
        let cursor = session.editorState?.buffer.cursor
        switch (follower.pending, session) {
        case (.whole, _), (.lines, .counter):
            follower.revision += 1
            follower.pending = .nothing
            follower.cursor = cursor
            return .state(revision: follower.revision, activityType: session.activityType, userInfo: session.userInfo)
        case (.lines(let changes), .editor(let state)):
            follower.pending = .nothing
            follower.cursor = cursor
            let range = changes.replaced
            follower.revision += 1
            return .change(
                revision: follower.revision, base: follower.revision - 1, start: range.start, removed: range.removed,
                lines: state.buffer.lines(from: range.start, count: range.inserted), lineCount: state.buffer.lineCount,
                cursor: state.buffer.cursor)
        case (.nothing, .editor(let state)) where state.buffer.cursor != follower.cursor:
            // Only the cursor moved.
            follower.cursor = state.buffer.cursor
            follower.revision += 1
            return .change(
                revision: follower.revision, base: follower.revision - 1, start: 0, removed: 0, lines: [],
                lineCount: state.buffer.lineCount, cursor: state.buffer.cursor)
        case (.nothing, _):
            return nil
        }
    }

    /// The follower `taker` asked for the baton: it gets what it is owed, then the baton; this
    /// program follows it from now on, and the other followers are told where it went.
    static func giveBaton(to taker: LiveFollower, _ model: inout AppModel) -> [AppCommand] {
        var taker = taker
        var commands: [AppCommand] = []
        if let last = nextMessage(for: &taker, model.session) { commands.append(.liveSend(link: taker.link, last)) }
        let cursor = model.session.editorState?.buffer.cursor ?? TextPosition(line: 0, column: 0)
        commands.append(.liveSend(link: taker.link, .given(revision: taker.revision, cursor: cursor, undoHistory: model.session.editorState?.history.userInfoValue)))
        for other in model.live?.followers ?? [] where other.link != taker.link {
            commands += [.liveSend(link: other.link, .moved(peerName: taker.peerName)), .liveClose(link: other.link)]
        }
        var following = LiveFollowing(link: taker.link, peerName: taker.peerName, mayTake: true, activityID: nil)
        following.revision = taker.revision
        following.gave = true
        model.live = .following(following)
        model.overlay = nil
        // The line says it from now on: "Following alice — read-only · Ctrl-T takes the baton back".
        model.notice = nil
        return commands + [.stopPublishing]
    }

    /// A message from the leader.
    static func receivedAsFollower(_ message: LiveMessage, _ following: inout LiveFollowing, _ model: inout AppModel) -> [AppCommand] {
        defer { if case .following = model.live { model.live = .following(following) } }
        switch message {
        case .state(let revision, let type, let userInfo):
            guard var session = Session(activityType: type, userInfo: userInfo, from: following.peerName) else {
                return askResync(&following)
            }
            // The source following its own session keeps its file: a take back saves where it did.
            if case .editor(let mine) = model.session, case .editor(var theirs) = session, mine.filePath != nil,
               mine.fileName == theirs.fileName {
                theirs.filePath = mine.filePath
                theirs.disk = mine.disk
                theirs.isReadOnly = mine.isReadOnly
                session = .editor(theirs)
            }
            model.session = session
            following.revision = revision
            following.resyncAsked = false
            following.gave = false
            following.linkProblem = nil
            following.retries = 0
            return []
        case .change(let revision, let base, let start, let removed, let lines, let lineCount, let cursor):
            // The state is taken out of the model while it changes: a copy beside the model's
            // would copy the rope's blocks (thousands at 16 MB) on every key followed. (No copy
            // is bound here for the check either: it would share them too.)
            let fits = model.session.editorState.map { $0.buffer.lineCount - removed + lines.count == lineCount } ?? false
            guard following.revision == base, fits, var state = model.takeEditorState() else {
                following.revision = nil
                return askResync(&following)
            }
            guard state.buffer.replaceLines(from: start, removed: removed, with: lines), state.buffer.lineCount == lineCount else {
                // Out of range (nothing changed), or lines with line breaks in them (the text is
                // wrong now): the whole state is asked for.
                model.session = .editor(state)
                following.revision = nil
                return askResync(&following)
            }
            state.buffer.move(to: cursor)
            _ = state.buffer.takeLineChanges()
            model.session = .editor(state)
            following.revision = revision
            following.gave = false
            return []
        case .given(let revision, let cursor, let history):
            guard following.isTaking else { return [] }
            // A change before the take did not fit: lead only once the whole state came.
            guard following.revision == revision else {
                following.revision = nil
                return askResync(&following)
            }
            if case .editor(var state) = model.session {
                state.buffer.move(to: cursor)
                _ = state.buffer.takeLineChanges()
                state.history = EditHistory.received(history, for: state.buffer)
                state.isDirty = true  // the newest text, not yet saved here
                if state.filePath != nil { state.continuedFrom = nil }  // its own file again
                model.session = .editor(state)
            }
            var follower = LiveFollower(link: following.link, peerName: following.peerName, mayTake: true)
            follower.pending = .nothing
            follower.revision = revision
            follower.cursor = model.session.editorState?.buffer.cursor
            model.live = .leading([follower])
            model.show("You have the baton · \(following.peerName) follows")
            return [.startActivity]
        case .moved(let peerName):
            following.linkProblem = "the session moved to \(peerName)"
            following.retryAt = nil
            return [.liveClose(link: following.link)]
        case .resync where following.gave:
            // The taker did not hold what was given: the whole state at that revision, and the baton again.
            guard let revision = following.revision else { return [] }
            let cursor = model.session.editorState?.buffer.cursor ?? TextPosition(line: 0, column: 0)
            return [
                .liveSend(link: following.link, .state(revision: revision, activityType: model.session.activityType, userInfo: model.session.userInfo)),
                .liveSend(link: following.link, .given(revision: revision, cursor: cursor, undoHistory: model.session.editorState?.history.userInfoValue)),
            ]
        case .hello, .take, .resync:
            return []
        }
    }

    /// `resync`, unless one is on its way already.
    private static func askResync(_ following: inout LiveFollowing) -> [AppCommand] {
        guard !following.resyncAsked else { return [] }
        following.resyncAsked = true
        return [.liveSend(link: following.link, .resync)]
    }
}
