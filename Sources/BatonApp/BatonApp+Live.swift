import PropertyList
import TerminalUI
import HandoffWire

/// Live sessions (docs/PROTOCOL.md, section 19): the leader sends its followers what changed,
/// the newest only (a slow follower gets the newest state, never a backlog, and never slows
/// the one who types); a follower shows it read-only and may take the baton back.
extension BatonApp {
    /// The key that takes the baton back in this session.
    static func takeKey(_ session: Session) -> String {
        session.kind == .counter ? "t" : "Ctrl-T"
    }

    static func isTakeKey(_ key: Key, _ session: Session) -> Bool {
        session.kind == .counter ? key == .character("t") || key == .character("T") : key == .control("t")
    }

    /// A key while following: the take key, quitting and the nearby list work; the rest is
    /// refused with a notice, never typed.
    static func handleFollowingKey(_ key: Key, _ following: LiveFollowing, _ model: inout AppModel) -> [AppCommand] {
        if isTakeKey(key, model.session), following.mayTake, following.leaderEnded {
            // The leader is gone: what is shown here, its last state, becomes this program's.
            model.live = nil
            if case .editor(var state) = model.session {
                state.isDirty = true
                if state.filePath != nil { state.continuedFrom = nil }
                model.session = .editor(state)
            }
            model.show("It is yours now")
            return [.liveClose(link: following.link), .startActivity]
        }
        if isTakeKey(key, model.session), following.mayTake {
            guard following.linkProblem == nil else {
                model.show("The link to \(following.peerName) is down: the baton can be taken once it is back", kind: .problem)
                return []
            }
            guard !following.isTaking else { return [] }
            var taking = following
            taking.isTaking = true
            model.live = .following(taking)
            return [.liveSend(link: following.link, .take)]
        }
        if model.session.kind == .counter {
            // The counter's own keys for leaving and for the nearby list work as always.
            switch key {
            case .character("q"), .character("Q"): return requestQuit(&model)
            case .character("n"), .character("N"):
                openNearby(&model)
                return []
            default: break
            }
        }
        model.show(following.line(takeKey: takeKey(model.session)))
        return []
    }

    /// Follows the nearby activity `activityID` read-only (`f` in the nearby list, `baton
    /// follow`): the session shown here becomes that one, so unsaved text here is kept first.
    static func startFollowing(activityID: String, _ model: inout AppModel) -> [AppCommand] {
        if case .editor(let state) = model.session, state.isDirty, model.live?.following == nil {
            model.show("Unsaved changes here: save them (Ctrl-S) before following another session", kind: .problem)
            return []
        }
        let ending = endLive(&model)
        model.liveIntent = AppModel.LiveIntent(leads: false, mayTake: false, activityID: activityID)
        // This program's own session stays published until the stream is open: a follow that
        // fails leaves it as it was.
        return ending + [.openLive(activityID: activityID, leads: false, mayTake: false)]
    }

    // MARK: Messages

    static func liveOpened(link: Int, peerName: String, opener: Bool, _ model: inout AppModel) -> [AppCommand] {
        guard opener else {
            model.liveWaiting[link] = peerName
            return []
        }
        guard let intent = model.liveIntent else { return [.liveClose(link: link)] }
        model.liveIntent = nil
        model.liveLeadRetry = nil
        if intent.leads {
            return addFollower(LiveFollower(link: link, peerName: peerName, mayTake: intent.mayTake), &model)
        }
        let following = LiveFollowing(link: link, peerName: peerName, mayTake: intent.mayTake, activityID: intent.activityID)
        return follow(following, &model) + [.stopPublishing]
    }

    /// How often, after a continue, the stream to the source is tried again when it could not
    /// be reached (a relay still connecting): 1, 2, then 4 s later.
    static let liveLeadTries = 3

    static func liveOpenFailed(_ reason: String, retry: Bool, _ model: inout AppModel) -> [AppCommand] {
        let intent = model.liveIntent
        model.liveIntent = nil
        if intent?.leads == true {
            // After a continue, a source without live sessions is the ordinary case: nothing to say.
            let tries = model.liveLeadRetry?.tries ?? 0
            model.liveLeadRetry = retry && tries < liveLeadTries
                ? AppModel.LiveLeadRetry(at: model.now.timeIntervalSinceReferenceDate + Double(1 << tries), tries: tries + 1) : nil
        } else if intent?.leads == false {
            model.show("Could not follow: \(reason)", kind: .problem)
        }
        return []
    }

    static func liveReceived(link: Int, _ message: LiveMessage, _ model: inout AppModel) -> [AppCommand] {
        if let streamName = model.liveWaiting.removeValue(forKey: link) {
            guard case .hello(let leads, let activityID, let mayTake, let name) = message else { return [.liveClose(link: link)] }
            // The name its activities give it, when it says one; else the stream's.
            let peerName = name.map { PeerText.visible($0) } ?? streamName
            if leads {
                // The one who continued this session: said as its CONTINUED says it, whichever comes
                // first (this program withdraws now, and a CONTINUED for a withdrawn activity is not told).
                model.show("Continued on \(peerName)")
                let following = LiveFollowing(link: link, peerName: peerName, mayTake: mayTake, activityID: activityID)
                return follow(following, &model) + [.stopPublishing]
            }
            if let following = model.live?.following {
                // This program follows: the one who asked should follow the leader instead.
                return [.liveSend(link: link, .moved(peerName: following.peerName)), .liveClose(link: link)]
            }
            return addFollower(LiveFollower(link: link, peerName: peerName, mayTake: mayTake), &model)
        }
        switch model.live {
        case .following(var following) where following.link == link:
            return receivedAsFollower(message, &following, &model)
        case .leading(var followers):
            guard let index = followers.firstIndex(where: { $0.link == link }) else { return [] }
            switch message {
            case .resync:
                followers[index].pending = .whole
                model.live = .leading(followers)
                return syncFollowers(&model)
            case .take where followers[index].mayTake:
                return giveBaton(to: followers[index], &model)
            default:
                return []
            }
        default:
            return []
        }
    }

    static func liveSent(link: Int, _ model: inout AppModel) -> [AppCommand] {
        guard case .leading(var followers) = model.live, let index = followers.firstIndex(where: { $0.link == link }) else {
            return []
        }
        followers[index].isSending = false
        model.live = .leading(followers)
        return syncFollowers(&model)
    }

    static func liveEnded(link: Int, problem: String?, _ model: inout AppModel) -> [AppCommand] {
        model.liveWaiting[link] = nil
        switch model.live {
        case .following(var following) where following.link == link:
            // Told the session moved: it stays as it is, with no more tries.
            if following.linkProblem != nil, following.retryAt == nil { return [] }
            following.isTaking = false
            if let problem {
                following.linkProblem = problem
                following.retryAt = model.now.timeIntervalSinceReferenceDate + 1
            } else {
                // Closed by the leader: it ended the session, and there is nothing to open again.
                following.linkProblem = "it ended the session"
                following.leaderEnded = true
            }
            model.live = .following(following)
        case .leading(var followers):
            guard let index = followers.firstIndex(where: { $0.link == link }) else { return [] }
            let gone = followers.remove(at: index)
            model.live = followers.isEmpty ? nil : .leading(followers)
            model.show("\(gone.peerName) stopped following")
        default:
            break
        }
        return []
    }

    /// A tick while the link to the leader is down: open it again, 1, 2, 4, then every 8 s.
    static func liveTick(_ model: inout AppModel) -> [AppCommand] {
        if let retry = model.liveLeadRetry, model.now.timeIntervalSinceReferenceDate >= retry.at, model.liveIntent == nil {
            model.liveIntent = AppModel.LiveIntent(leads: true, mayTake: true)
            model.liveLeadRetry = AppModel.LiveLeadRetry(at: .infinity, tries: retry.tries)
            return [.openLive(activityID: nil, leads: true, mayTake: true)]
        }
        guard case .following(var following) = model.live, following.linkProblem != nil,
              let due = following.retryAt, model.now.timeIntervalSinceReferenceDate >= due, let id = following.activityID
        else { return [] }
        following.retries += 1
        following.retryAt = model.now.timeIntervalSinceReferenceDate + Double(1 << min(following.retries, 3))
        model.live = .following(following)
        model.liveIntent = AppModel.LiveIntent(leads: false, mayTake: following.mayTake, activityID: id)
        return [.openLive(activityID: id, leads: false, mayTake: following.mayTake)]
    }

    // MARK: Roles

    private static func follow(_ new: LiveFollowing, _ model: inout AppModel) -> [AppCommand] {
        var following = new
        if case .following(let old) = model.live {
            // A link opened again: the same session, the same way back.
            following.activityID = following.activityID ?? old.activityID
            following.mayTake = following.mayTake || old.mayTake
        }
        model.live = .following(following)
        model.overlay = nil
        return []
    }

    private static func addFollower(_ follower: LiveFollower, _ model: inout AppModel) -> [AppCommand] {
        var followers = model.live?.followers ?? []
        followers.append(follower)
        model.live = .leading(followers)
        return syncFollowers(&model)
    }
}
