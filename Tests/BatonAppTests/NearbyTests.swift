import Foundation
import Testing
import TerminalUI
@testable import BatonApp

@Suite("Nearby list")
struct NearbyTests {
    static let older = Fixtures.item("old", "Editing notes.txt", peer: "carol@box", secondsAgo: 125)
    static let newer = Fixtures.item("new", "Counter: 5", secondsAgo: 3)

    @Test("Items are kept newest first, whatever order they arrive in")
    func ordering() {
        var model = Fixtures.counter()
        model.send(.nearbyChanged([Self.older, Self.newer]))
        #expect(model.nearby.map(\.id) == ["new", "old"])
    }

    @Test("Up and Down select, clamped at the ends; Enter continues the selected activity")
    func selectAndContinue() {
        var model = Fixtures.counter()
        model.send(.nearbyChanged([Self.older, Self.newer]))
        model.press(.control("n"))
        #expect(model.overlay == .nearby(selectedID: "new"))
        model.press(.down, .down)
        #expect(model.overlay == .nearby(selectedID: "old"))
        model.press(.up, .up, .up)
        #expect(model.overlay == .nearby(selectedID: "new"))
        model.press(.down)
        #expect(model.press(.enter) == [.continueActivity(id: "old")])
        #expect(model.overlay == .continuing(ContinueState(id: "old", title: "Editing notes.txt", peerName: "carol@box")))
        #expect(model.notice?.text == "Continuing Editing notes.txt from carol@box…")
    }

    @Test("Esc, q and Ctrl-N close the list; Enter on an empty list does nothing")
    func closeAndEmpty() {
        for key in [Key.escape, .character("q"), .control("n")] {
            var model = Fixtures.counter()
            model.press(.character("n"))
            #expect(model.press(.enter) == [])
            model.press(key)
            #expect(model.overlay == nil)
            #expect(model.isQuitting == false)
        }
    }

    @Test("The selection stays on its activity when the list changes, or at its place when it left")
    func selectionSurvivesChanges() {
        var model = Fixtures.counter()
        model.send(.nearbyChanged([Self.older, Self.newer]))
        model.press(.character("n"), .down)
        let newest = Fixtures.item("newest", "Counter: 9", secondsAgo: 1)
        model.send(.nearbyChanged([Self.older, Self.newer, newest]))
        #expect(model.overlay == .nearby(selectedID: "old"))
        model.send(.nearbyChanged([Self.newer, newest]))
        #expect(model.overlay == .nearby(selectedID: "new"))
        model.send(.nearbyChanged([]))
        #expect(model.overlay == .nearby(selectedID: nil))
    }

    @Test("Continuing over unsaved changes asks first: y continues, n goes back to the list")
    func dirtyEditorConfirm() {
        var model = Fixtures.editor("unsaved", isDirty: true)
        model.send(.nearbyChanged([Self.newer]))
        model.press(.control("n"))
        #expect(model.press(.enter) == [])
        #expect(model.overlay == .confirm(.discardChangesToContinue(id: "new")))
        #expect(model.press(.character("n")) == [])
        #expect(model.overlay == .nearby(selectedID: "new"))
        model.press(.enter)
        #expect(model.press(.character("y")) == [.continueActivity(id: "new")])
        #expect(model.overlay == .continuing(ContinueState(id: "new", title: "Counter: 5", peerName: "bob@desk")))
    }

    static let shell = NearbyItem(
        id: "sh", activityType: BatonApp.shellActivityType, title: "sh in ~/src — bob@desk", peerName: "bob@desk",
        savedAt: Fixtures.start, lastHeard: Fixtures.start)

    @Test("A shell session: Enter leaves for it to drive, f to follow; the program quits after saying so")
    func shellSession() {
        for (key, follow) in [(Key.enter, false), (.character("f"), true)] {
            var model = Fixtures.counter()
            model.send(.nearbyChanged([Self.shell, Self.newer]))
            model.press(.control("n"))
            #expect(model.overlay == .nearby(selectedID: "sh"), "the newest first")
            #expect(model.press(key) == [.joinShell(id: "sh", follow: follow), .quit])
            #expect(model.isQuitting)
            #expect(model.notice?.text == "Joining the shell session on bob@desk…")
        }
    }

    @Test("A shell session over unsaved changes: Enter asks first and y leaves for it; f says to save first")
    func shellSessionDirty() {
        var model = Fixtures.editor("unsaved", isDirty: true)
        model.send(.nearbyChanged([Self.shell]))
        model.press(.control("n"))
        #expect(model.press(.character("f")) == [])
        #expect(!model.isQuitting)
        #expect(model.notice?.text.hasPrefix("Save first (Ctrl-S)") == true)
        #expect(model.press(.enter) == [])
        #expect(model.overlay == .confirm(.discardChangesToContinue(id: "sh")))
        #expect(model.press(.character("y")) == [.joinShell(id: "sh", follow: false), .quit])
        #expect(model.isQuitting)
    }

    @Test("A clean editor continues without asking")
    func cleanEditor() {
        var model = Fixtures.editor("saved")
        model.send(.nearbyChanged([Self.newer]))
        model.press(.control("n"))
        #expect(model.press(.enter) == [.continueActivity(id: "new")])
    }

    @Test("A continue that succeeds replaces the session, says from whom, and asks for a new activity, not a save")
    func continued() {
        var model = Fixtures.editor("old text", isDirty: true)
        let commands = model.send(.continued(.counter(CounterState(count: 5)), from: "bob@desk"))
        // A new activity, then the live session with the source, when the source offers one.
        #expect(commands == [.startActivity, .openLive(activityID: nil, leads: true, mayTake: true)])
        #expect(model.session == .counter(CounterState(count: 5)))
        #expect(model.notice?.text == "Continued from bob@desk")
    }

    @Test("A continue that fails says why")
    func continueFailed() {
        var model = Fixtures.counter()
        model.send(.continueFailed("That activity is no longer nearby."))
        #expect(model.notice == Notice("Could not continue: That activity is no longer nearby.", kind: .problem, shownAt: Fixtures.start))
    }

    @Test("Ages: just now, seconds, minutes, hours, days")
    func ages() {
        #expect(RelativeAge.describe(seconds: -5) == "just now")
        #expect(RelativeAge.describe(seconds: 0.5) == "just now")
        #expect(RelativeAge.describe(seconds: 3.9) == "3s ago")
        #expect(RelativeAge.describe(seconds: 125) == "2m ago")
        #expect(RelativeAge.describe(seconds: 7200) == "2h ago")
        #expect(RelativeAge.describe(seconds: 200_000) == "2d ago")
        #expect(RelativeAge.describe(seconds: .infinity) == "just now")
    }
}
