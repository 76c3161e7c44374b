import BatonApp
import FoundationEssentials
import Handoff
import HandoffWire
import TerminalUI

extension Program {
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
            upkeep.savedBehind = true
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
        lastContinued = activity
        inbox.yield(.continued(files.placing(session), from: peerName ?? "a peer"))
    }

    public func userActivityWasContinued(_ activity: UserActivity, by peer: PeerInfo) {
        let name = PeerText.visible(peer.name)
        logger.info("continued on \(name)")
        inbox.yield(.continuedElsewhere(peerName: name))
    }

    public func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        acceptLive(stream)
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
