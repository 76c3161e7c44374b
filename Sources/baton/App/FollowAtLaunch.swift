import BatonApp
import Handoff
import HandoffCLI
import HandoffWire
import ShellHost

/// `baton follow` before the UI opens: the activity to follow, found as a continue finds it.
@MainActor
enum FollowAtLaunch {
    /// What was found to follow.
    enum Found {
        /// The session to show until the leader's state comes, and the message that follows it.
        case session(Session, [AppMessage])
        /// A shell session, watched by `ShellTerminal`.
        case shell(NearbyActivity)
    }

    static func find(
        center: ActivityCenter, type: String?, from peer: String?, timeout: Duration, keySource: GroupKey.Source
    ) async throws -> Found {
        guard let found = await center.findNearby(type: type, from: peer, timeout: timeout) else {
            let error = HandoffError.notFound(type: type, peer: peer, waited: timeout, endpoint: center.transport.endpointDescription)
            throw CommandFailure(KeyAdvice.continueFailed(error, otherKeySources: center.otherKeySources, keySource: keySource))
        }
        let name = PeerText.visible(found.record.peer.name)
        guard found.record.continuationPort != nil else {
            throw CommandFailure(
                "\(name) does not offer its session live (a Baton without live sessions, or no state stream): "
                    + "continue it instead with baton --continue-activity \(found.record.activityType)")
        }
        if found.record.activityType == ShellKeeper.activityType { return .shell(found) }
        let session: Session = found.record.activityType == Session.counterActivityType
            ? .counter(CounterState(count: 0)) : .editor(EditorState(text: "", filePath: nil))
        return .session(session, [.follow(activityID: found.id)])
    }
}
