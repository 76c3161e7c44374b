import FoundationEssentials
import Handoff
import TerminalUI

/// Something that happened, for `BatonApp.update`: a key, a resize, the clock, the network or a file.
public enum AppMessage: Equatable, Sendable {
    /// A key was pressed.
    case key(Key)
    /// The terminal pasted this text (a bracketed paste): inserted whole, as text, with no
    /// key bindings applied inside it.
    case paste(String)
    /// The terminal has a new size.
    case resize(TerminalSize)
    /// The mouse was pressed or its wheel turned (only while the editor asked for the mouse).
    case mouse(Mouse)
    /// Time passed; ages and notices are measured against this date.
    case tick(Date)
    /// The continuable activities from peers changed (any order; the model keeps them newest first).
    case nearbyChanged([NearbyItem])
    /// How many other peers were heard recently.
    case peersHeard(Int)
    /// The network's state changed.
    case network(NetworkState)
    /// The activity was published.
    case published
    /// The activity could not be published; the string is `HandoffError.description`.
    case publishFailed(String)
    /// Our activity was continued by that peer.
    case continuedElsewhere(peerName: String)
    /// A continue succeeded: the session is replaced by this one, restored from that peer's
    /// activity. The Program sends it after performing `.continueActivity` (and once at launch
    /// for a session continued before the UI started); it is answered by `.startActivity`.
    case continued(Session, from: String)
    /// A continue we asked for failed, and why.
    case continueFailed(String)
    /// How far the fetch of the large record being continued has come.
    case continueProgress(TransferProgress)
    /// The continue of `id` has been running for `elapsed` (the Program says so once
    /// `BatonApp.continueOverlayDelay` has passed, progress or not).
    case continueWaited(id: String, elapsed: Duration)
    /// This session is not handed off, and why (e.g. its file is over the state limit): it
    /// works here and publishes nothing until a continued session replaces it.
    case handoffOff(String)
    /// The editor's text, joined off the main actor for the saves, with the buffer's blocks cut
    /// again from it (`TextBuffer.recutFromText`): the editor takes them if its text has not
    /// changed since, and so holds one copy of a large text rather than the file's and the join.
    case textRecut(TextBuffer)
    /// The editor's text was written to `path`.
    /// `stamp`: the file as written, for the next save to compare with; `isReadOnly`: this
    /// process may not write it now (written anyway, it kept its mode).
    case fileSaved(path: String, stamp: FileStamp? = nil, isReadOnly: Bool = false)
    /// The editor's text could not be written, and why.
    case fileSaveFailed(String)
    /// The save target exists with other contents: ask before replacing it.
    /// `changedOnDisk`: it is the file the editor read or saved, changed since by someone else.
    case saveNeedsConfirmation(path: String, changedOnDisk: Bool = false)
    /// The file at `path` is read-only (no write permission); nothing was written.
    case saveReadOnly(path: String)
    /// The terminal's input ended (it went away): nobody can answer a question, so quit.
    case inputClosed
    /// The clipboard that follows the person is now `clip`: cut on another machine of the
    /// group, or kept from before this program started. The next Ctrl-U pastes it.
    case clipboard(Clip)
    /// How this person last chose to show the editor's text (line numbers, soft wrap), kept
    /// from before this program started; applied to a session that was not continued (a
    /// continued one shows the text as its sender did).
    case displayPreference(EditorDisplay)
    /// A live session's stream is open (docs/PROTOCOL.md, section 19): `link` numbers it;
    /// `opener`: this program opened it (as `.openLive` asked), else another machine did.
    case liveOpened(link: Int, peerName: String, opener: Bool)
    /// A message came on a live stream.
    case liveReceived(link: Int, LiveMessage)
    /// What `.liveSend` gave the stream went out: the next change may follow.
    case liveSent(link: Int)
    /// A live stream ended; `problem` says why, nil for a close by the other end.
    case liveEnded(link: Int, problem: String?)
    /// A live stream asked for with `.openLive` could not be opened, and why; `retry`: the
    /// source may be reachable in a moment (no connection yet, busy), not refused for good.
    case liveOpenFailed(String, retry: Bool = false)
    /// Follow the nearby activity `activityID` read-only (`baton follow`).
    case follow(activityID: String)
}
