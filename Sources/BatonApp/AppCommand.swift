/// Something `BatonApp.update` asks the Program to do; the answers come back as `AppMessage`s.
public enum AppCommand: Equatable, Sendable {
    /// The session's published state (type, title or userInfo) changed: mark the activity needsSave.
    /// Not sent for `AppMessage.continued`, which asks for `.startActivity` instead.
    case publish
    /// The session was replaced by a continued one: withdraw the current activity and publish
    /// a new one for the session now in the model.
    case startActivity
    /// Continue this nearby activity; answered by `.continued` or `.continueFailed`, and while
    /// a large record is fetched, by `.continueProgress` and `.continueWaited`.
    case continueActivity(id: String)
    /// Stop the continue under way: nothing is restored and no answer comes back (the model
    /// has already said it was cancelled).
    case cancelContinue
    /// Write `text` to `path` atomically; answered by `.fileSaved`, `.fileSaveFailed` or,
    /// unless `replaceExisting`, `.saveNeedsConfirmation` when another file is there. A file
    /// there that still matches `expecting` (what the editor read or last saved) is the
    /// editor's own and is replaced without asking.
    case saveFile(path: String, text: String, replaceExisting: Bool, expecting: FileStamp? = nil)
    /// Keep `clip` as the clipboard that follows the person (the key-value store's `clipboard`),
    /// after a Ctrl-K or Alt-6. Nothing comes back.
    case keepClipboard(Clip)
    /// Keep `display` as how this person likes the editor's text shown (Alt-N, Alt-S, Alt-C,
    /// Alt-M), for the next session. Nothing comes back.
    case keepDisplay(EditorDisplay)
    /// Ask the terminal for mouse reports (`AppMessage.mouse`), or stop.
    case mouseReporting(Bool)
    /// Open a live stream (docs/PROTOCOL.md, section 19): to the source of the session just
    /// continued, leading it (`activityID` nil), or to the nearby activity `activityID`,
    /// following it. The Program sends the opener's hello; answered by `.liveOpened` or
    /// `.liveOpenFailed`.
    case openLive(activityID: String?, leads: Bool, mayTake: Bool)
    /// Send `message` on the live stream `link`; answered by `.liveSent` once it went.
    case liveSend(link: Int, LiveMessage)
    /// End the live stream `link`.
    case liveClose(link: Int)
    /// This program follows now: withdraw its activity and publish nothing until it leads
    /// again (`.startActivity`).
    case stopPublishing
    /// A shell session from the nearby list: the Program leaves after `.quit` (which follows),
    /// and the terminal then drives that session, or with `follow` watches it
    /// (`Program.chosenShell`).
    case joinShell(id: String, follow: Bool)
    /// Leave: the model is already quitting, so the Program's loop ends after this message,
    /// withdraws the activity and hands the terminal back.
    case quit
}
