import Handoff
import TerminalUI

extension BatonApp {
    /// How long a continue runs before its progress is drawn: a record that fits one datagram
    /// is restored well within it, so the screen does not flash a bar nobody could read.
    public static let continueOverlayDelay: Duration = .milliseconds(200)

    /// Asks the Program to continue the activity `id` and says so. Until it is answered
    /// (`.continued` or `.continueFailed`) the continue overlay takes the keys.
    static func continueActivity(id: String, _ model: inout AppModel) -> [AppCommand] {
        let item = model.nearby.first { $0.id == id }
        if let item, item.activityType == shellActivityType { return joinShell(item, follow: false, &model) }
        if let item { model.show("Continuing \(item.title) from \(item.peerName)…") }
        model.overlay = .continuing(ContinueState(
            id: id, title: item?.title ?? "the activity", peerName: item?.peerName ?? "a peer",
            stateSize: item?.stateSize))
        return [.continueActivity(id: id)]
    }

    /// The declared type of a shell session (`baton shell`), which this app does not show.
    public static let shellActivityType = "dev.baton.shell"

    /// A shell session chosen in the list (Enter drives it, `f` follows it): this program
    /// leaves, and the terminal goes to the session (`AppCommand.joinShell`, then `.quit`).
    /// Unsaved changes were asked about before, as for any continue: a y discards them.
    static func joinShell(_ item: NearbyItem, follow: Bool, _ model: inout AppModel) -> [AppCommand] {
        model.show("Joining the shell session on \(item.peerName)…")
        return [.joinShell(id: item.id, follow: follow)] + quit(&model)
    }

    /// The keys while a continue runs. Esc (or Ctrl-C) cancels it and Ctrl-Q cancels it and
    /// quits. Other keys are dropped, not kept for later: the session they were meant for is
    /// about to be replaced, and keys typed into the one that replaces it would land blind.
    static func handleContinuingKey(_ key: Key, _ state: ContinueState, _ model: inout AppModel) -> [AppCommand] {
        switch key {
        case .escape, .control("c"):
            return cancelContinue(&model)
        case .control("q"):
            return cancelContinue(&model) + requestQuit(&model)
        default:
            return []
        }
    }

    /// Stops the continue under way; the session stays as it was.
    static func cancelContinue(_ model: inout AppModel) -> [AppCommand] {
        model.overlay = nil
        model.show("Continue cancelled; nothing was restored")
        return [.cancelContinue]
    }

    /// A progress report for the continue under way (reports for another are stale).
    static func continueProgressed(_ progress: TransferProgress, _ model: inout AppModel) {
        guard case .continuing(var state) = model.overlay, state.id == progress.activityID else { return }
        state.progress = progress
        state.elapsed = max(state.elapsed, progress.elapsed)
        model.overlay = .continuing(state)
    }

    /// The continue `id` has run for `elapsed`, whether or not progress was reported.
    static func continueWaited(id: String, elapsed: Duration, _ model: inout AppModel) {
        guard case .continuing(var state) = model.overlay, state.id == id else { return }
        state.elapsed = max(state.elapsed, elapsed)
        model.overlay = .continuing(state)
    }

    /// The continue is over, whichever way: the overlay goes.
    static func continueEnded(_ model: inout AppModel) {
        if case .continuing = model.overlay { model.overlay = nil }
    }
}
