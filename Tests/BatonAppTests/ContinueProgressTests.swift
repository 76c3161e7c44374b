import Foundation
import Handoff
import Testing
import TerminalUI
@testable import BatonApp

/// A continue that takes a while: the progress overlay, Esc, failures, and the keys meanwhile.
@Suite("Continue progress")
struct ContinueProgressTests {
    static let mib = 1024 * 1024
    static let big = Fixtures.item("big", "Editing big.log", peer: "alice@laptop", secondsAgo: 3)

    /// A counter at 5 that has chosen `item` from its nearby list.
    static func continuing(_ item: NearbyItem = big, width: Int = 40, height: Int = 10) -> AppModel {
        var model = Fixtures.counter(5, width: width, height: height)
        model.send(.nearbyChanged([item]))
        model.press(.control("n"))
        #expect(model.press(.enter) == [.continueActivity(id: item.id)])
        return model
    }

    static func progress(
        _ received: Int, of total: Int, after milliseconds: Int, id: String = "big", peer: String = "alice@laptop"
    ) -> AppMessage {
        .continueProgress(TransferProgress(
            activityID: id, peerName: peer, received: received, total: total, elapsed: .milliseconds(milliseconds)))
    }

    @Test("Within 200 ms nothing covers the session: progress only updates the model")
    func notBeforeTheDelay() {
        var model = Self.continuing()
        let before = model.screen
        model.send(Self.progress(6 * Self.mib, of: 16 * Self.mib, after: 150))
        #expect(model.screen == before)
        #expect(model.screen[8] == "Continuing Editing big.log from alice@l…")
        guard case .continuing(let state) = model.overlay else {
            Issue.record("no continue under way: \(String(describing: model.overlay))")
            return
        }
        #expect(state.progress?.received == 6 * Self.mib)
        #expect(!state.isShown)
    }

    @Test("After 200 ms the overlay shows the bar, bytes received of the total, the rate and the source")
    func overlay() {
        var model = Self.continuing()
        // 6.7 MB of 16 MB after 250 ms: 26.8 MB/s.
        model.send(Self.progress(7_025_459, of: 16 * Self.mib, after: 250))
        expectScreen(model, [
            "┌─ Continuing ─────────────────────────┐",
            "│ Editing big.log                      │",
            "│ from alice@laptop                    │",
            "│ ████████████░░░░░░░░░░░░░░░░░░░  41% │",
            "│ 6.7 MB of 16 MB · 27 MB/s            │",
            "│ Esc cancels                          │",
            "└──────────────────────────────────────┘",
            "                                        ",
            "Continuing Editing big.log from alice@l…",
            " Counter · 2 peers · online             ",
        ])
        #expect(model.screenCursor == nil)
        // When the notice has gone, the message line gives the keys.
        model.send(.tick(Fixtures.start.addingTimeInterval(5)))
        #expect(model.screen[8] == "Esc cancel · Ctrl-Q cancel and quit     ")
        model.send(Self.progress(16 * Self.mib, of: 16 * Self.mib, after: 500))
        #expect(model.screen[3] == "│ ███████████████████████████████ 100% │")
        #expect(model.screen[4] == "│ 16 MB of 16 MB · 32 MB/s             │")
    }

    @Test("A continue with no report yet shows after the Program says 200 ms passed: connecting, the offered size")
    func waitedWithoutProgress() {
        var item = Self.big
        item.stateSize = 16 * Self.mib
        var model = Self.continuing(item)
        model.send(.continueWaited(id: "big", elapsed: .milliseconds(199)))
        #expect(model.screen[0] == "                                        ")
        model.send(.continueWaited(id: "big", elapsed: .milliseconds(200)))
        expectScreen(model, [
            "┌─ Continuing ─────────────────────────┐",
            "│ Editing big.log                      │",
            "│ from alice@laptop                    │",
            "│ ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░   0% │",
            "│ Connecting… · 0 bytes of 16 MB       │",
            "│ Esc cancels                          │",
            "└──────────────────────────────────────┘",
            "                                        ",
            "Continuing Editing big.log from alice@l…",
            " Counter · 2 peers · online             ",
        ])
    }

    @Test("The nearby list says how much a large activity will fetch")
    func sizeInTheList() {
        var item = Self.big
        item.stateSize = 12_900_000
        var model = Fixtures.counter(5, width: 50)
        model.send(.nearbyChanged([item, Fixtures.item("small", "Counter: 1", secondsAgo: 9)]))
        model.press(.control("n"))
        #expect(Array(model.screen[2...5]) == [
            "┌─ Nearby (2) ───────────────────────────────────┐",
            "│▸ Editing big.log 12 MB · alice@laptop · 3s ago │",
            "│  Counter: 1                  bob@desk · 9s ago │",
            "└────────────────────────────────────────────────┘",
        ])
    }

    @Test("Reports about another activity, or after the continue ended, change nothing")
    func staleReports() {
        var model = Self.continuing()
        model.send(Self.progress(1, of: 2, after: 900, id: "other"))
        model.send(.continueWaited(id: "other", elapsed: .seconds(1)))
        #expect(model.overlay == .continuing(ContinueState(id: "big", title: "Editing big.log", peerName: "alice@laptop")))
        model.press(.escape)
        model.send(Self.progress(1, of: 2, after: 900))
        #expect(model.overlay == nil)
    }

    @Test("Esc cancels: the Program is told, the session stays as it was, the message line says so")
    func escCancels() {
        var model = Self.continuing()
        model.send(Self.progress(Self.mib, of: 16 * Self.mib, after: 400))
        let session = model.session
        #expect(model.press(.escape) == [.cancelContinue])
        #expect(model.overlay == nil)
        #expect(model.session == session)
        expectScreen(model, [
            "                                        ",
            "                 ██████                 ",
            "                 ██                     ",
            "                 ██████                 ",
            "                     ██                 ",
            "                 ██████                 ",
            "                                        ",
            "                                        ",
            "Continue cancelled; nothing was restored",
            " Counter · 2 peers · online             ",
        ])
        // The session has the keys again.
        #expect(model.press(.character("+")) == [.publish])
        #expect(model.count == 6)
    }

    @Test("Ctrl-C cancels too; Ctrl-Q cancels and quits, asking first about unsaved changes")
    func controlKeys() {
        var model = Self.continuing()
        #expect(model.press(.control("c")) == [.cancelContinue])
        #expect(!model.isQuitting)

        var quitting = Self.continuing()
        #expect(quitting.press(.control("q")) == [.cancelContinue, .quit])
        #expect(quitting.isQuitting)

        var editor = Fixtures.editor("draft", isDirty: true)
        editor.send(.nearbyChanged([Self.big]))
        editor.press(.control("n"), .enter, .character("y"))
        #expect(editor.press(.control("q")) == [.cancelContinue])
        #expect(editor.overlay == .confirm(.quitWithUnsavedChanges))
    }

    @Test("Other keys wait for nothing: they are dropped, so none lands in the session being replaced")
    func otherKeysDropped() {
        var model = Self.continuing()
        model.send(Self.progress(Self.mib, of: 16 * Self.mib, after: 400))
        let before = model
        for key in [Key.character("+"), .character("r"), .character("q"), .enter, .up, .control("n"), .control("s")] {
            #expect(model.press(key) == [], "\(key) did something")
        }
        #expect(model == before)

        var editor = Fixtures.editor("keep", isDirty: false)
        editor.send(.nearbyChanged([Self.big]))
        editor.press(.control("n"), .enter)
        editor.type("xyz")
        #expect(editor.editorState.buffer.text == "keep")
    }

    @Test("A failure takes the overlay away and shows the error's description")
    func failure() {
        var model = Self.continuing()
        model.send(Self.progress(3 * Self.mib, of: 16 * Self.mib, after: 900))
        let error = HandoffError.transferFailed(peer: "alice@laptop", reason: "the connection was reset")
        model.send(.continueFailed(error.description))
        #expect(model.overlay == nil)
        expectScreen(model, [
            "                                        ",
            "                 ██████                 ",
            "                 ██                     ",
            "                 ██████                 ",
            "                     ██                 ",
            "                 ██████                 ",
            "                                        ",
            "                                        ",
            "Could not continue: Could not fetch the…",
            " Counter · 2 peers · online             ",
        ])
        #expect(model.notice == Notice(
            "Could not continue: Could not fetch the activity from alice@laptop: the connection was reset. Nothing was restored.",
            kind: .problem, shownAt: Fixtures.start))
    }

    @Test("A success replaces the session as before and takes the overlay away")
    func success() {
        var model = Self.continuing()
        model.send(Self.progress(16 * Self.mib, of: 16 * Self.mib, after: 900))
        let restored = Session.editor(EditorState(text: "big", filePath: nil, fileName: "big.log"))
        #expect(model.send(.continued(restored, from: "alice@laptop")) == [.startActivity, .openLive(activityID: nil, leads: true, mayTake: true)])
        #expect(model.overlay == nil)
        #expect(model.session == restored)
        #expect(model.notice?.text == "Continued from alice@laptop — Ctrl-S saves to big.log")
    }

    @Test("The source's name is drawn inert; control characters cannot reach the terminal")
    func inertPeerName() {
        let item = Fixtures.item("big", "Editing \u{1b}[2Jx", peer: "eve\u{1b}]0;pwned\u{07}@lan", secondsAgo: 1)
        var model = Self.continuing(item)
        model.send(Self.progress(0, of: Self.mib, after: 300, peer: "eve\u{1b}]0;pwned\u{07}@lan"))
        #expect(model.screen[1] == "│ Editing ␛[2Jx                        │")
        #expect(model.screen[2] == "│ from eve␛]0;pwned␇@lan               │")
        #expect(!model.screen.joined().contains("\u{1b}"))
    }

    @Test("Small windows keep the bar longest: 30×6 keeps the bar and the amounts, 20×3 drops the border")
    func smallWindows() {
        var model = Self.continuing(width: 30, height: 6)
        model.send(Self.progress(8 * Self.mib, of: 16 * Self.mib, after: 300))
        expectScreen(model, [
            "┌─ Continuing ───────────────┐",
            "│ ██████████░░░░░░░░░░░  50% │",
            "│ 8 MB of 16 MB · 27 MB/s    │",
            "└────────────────────────────┘",
            "Continuing Editing big.log fr…",
            " Counter · 2 peers · online   ",
        ])
        var tiny = Self.continuing(width: 20, height: 3)
        tiny.send(Self.progress(8 * Self.mib, of: 16 * Self.mib, after: 300))
        expectScreen(tiny, [
            "███████░░░░░░░░  50%",
            "8 MB of 16 MB · 27 …",
            " Continuing Editing…",
        ])
    }
}
