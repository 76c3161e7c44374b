import TerminalUI

extension BatonApp {
    /// Routes a key: to the open overlay, else the keys that work everywhere, else the session.
    static func handleKey(_ key: Key, _ model: inout AppModel) -> [AppCommand] {
        if let overlay = model.overlay {
            return handleOverlayKey(key, overlay, &model)
        }
        switch key {
        case .control("n"):
            openNearby(&model)
            return []
        case .control("q"), .control("c"), .control("x"):
            return requestQuit(&model)
        case .function(1):
            model.overlay = .help(first: 0)
            return []
        default:
            break
        }
        if let following = model.live?.following {
            return handleFollowingKey(key, following, &model)
        }
        switch model.session {
        case .counter(var state):
            let commands = handleCounterKey(key, &state, &model)
            if case .counter = model.session { model.session = .counter(state) }
            return commands
        case .editor:
            guard var state = model.takeEditorState() else { return [] }
            let commands = handleEditorKey(key, &state, &model)
            if case .editor = model.session { model.session = .editor(state) }
            return commands
        }
    }

    /// Ctrl-Q (or Ctrl-X, as in nano): quits at once, or asks first when the editor has unsaved changes.
    static func requestQuit(_ model: inout AppModel) -> [AppCommand] {
        // A follower's text is the leader's, kept there: nothing of it is lost here.
        if case .editor(let state) = model.session, state.isDirty, model.live?.following == nil {
            model.overlay = .confirm(.quitWithUnsavedChanges)
            return []
        }
        return quit(&model)
    }

    /// Leaves now.
    static func quit(_ model: inout AppModel) -> [AppCommand] {
        model.overlay = nil
        model.isQuitting = true
        return endLive(&model) + [.quit]
    }

    /// Ends the live session this program takes part in: the streams close (a leader's
    /// followers were sent everything first: the Program sends in order).
    static func endLive(_ model: inout AppModel) -> [AppCommand] {
        defer {
            model.live = nil
            model.liveIntent = nil
        }
        switch model.live {
        case .following(let following): return [.liveClose(link: following.link)]
        case .leading(let followers):
            return followers.flatMap { follower -> [AppCommand] in
                var follower = follower
                let last = nextMessage(for: &follower, model.session).map { AppCommand.liveSend(link: follower.link, $0) }
                return (last.map { [$0] } ?? []) + [.liveClose(link: follower.link)]
            }
        case nil: return []
        }
    }
}
