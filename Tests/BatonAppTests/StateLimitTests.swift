import Handoff
import Testing
import TerminalUI
@testable import BatonApp

/// Files over the state limit: edited here, not handed off, and saved to disk as any other.
@Suite("The state limit in the editor")
struct StateLimitTests {
    static let mib = 1024 * 1024
    static let reason = "big.log is 40 MB; Baton hands off files up to 16 MB"

    /// An editor on big.log, told at start that it is not handed off.
    static func bigEditor(width: Int = 60) -> AppModel {
        var model = Fixtures.editor("first line\nsecond", filePath: "logs/big.log", width: width)
        #expect(model.send(.handoffOff(reason)) == [])
        return model
    }

    @Test("The reason names the file, its size and the limit; a file at the limit is handed off")
    func reasonText() {
        let limit = ActivityCenter.Configuration.defaultTextLimit
        #expect(BatonApp.fileTooLargeToHandOff(name: "big.log", bytes: 40 * Self.mib, limit: limit) == Self.reason)
        #expect(BatonApp.fileTooLargeToHandOff(name: "a.txt", bytes: limit + 1, limit: limit)
            == "a.txt is 16 MB; Baton hands off files up to 16 MB")
        #expect(BatonApp.fileTooLargeToHandOff(name: "a.txt", bytes: limit, limit: limit) == nil)
        #expect(BatonApp.fileTooLargeToHandOff(name: "a.txt", bytes: 0, limit: limit) == nil)
    }

    @Test("At start the message line says why, and the status bar marks the session as not handed off")
    func saysSoAtStart() {
        expectScreen(Self.bigEditor(), [
            " logs/big.log                                               ",
            "first line                                                  ",
            "second                                                      ",
            "                                                            ",
            "                                                            ",
            "                                                            ",
            "                                                            ",
            "                                                            ",
            "⚠ big.log is 40 MB; Baton hands off files up to 16 MB       ",
            " Editor · alice@laptop · 2 peers · online · ⚠ not handed off",
        ])
    }

    @Test("Edits work but publish nothing; Ctrl-S saves the file as for any other")
    func worksLocally() {
        var model = Self.bigEditor()
        #expect(model.type("more ") == [])
        #expect(model.press(.enter, .down, .end) == [])
        #expect(model.editorState.buffer.text == "more \nfirst line\nsecond")
        #expect(model.press(.control("s")) == [.saveFile(path: "logs/big.log", text: "more \nfirst line\nsecond", replaceExisting: false)])
        #expect(model.send(.fileSaved(path: "logs/big.log")) == [])
        #expect(!model.editorState.isDirty)
        #expect(model.notice?.text == "Saved logs/big.log")
        #expect(model.handoffOff == Self.reason, "saving does not turn handoff back on")
        // Once the notice has gone, the reason is back on the message line.
        model.send(.tick(Fixtures.start.addingTimeInterval(10)))
        #expect(model.screen[8].hasPrefix("⚠ big.log is 40 MB; Baton hands off files up to 16 MB"))
    }

    @Test("Continuing another session replaces this one, and that one is handed off again")
    func continuedSessionIsHandedOff() {
        var model = Self.bigEditor()
        #expect(model.send(.continued(.counter(CounterState(count: 2)), from: "bob@desk")) == [.startActivity, .openLive(activityID: nil, leads: true, mayTake: true)])
        #expect(model.handoffOff == nil)
        #expect(model.press(.character("+")) == [.publish])
        #expect(!model.screen[9].contains("not handed off"))
    }

    @Test("Text grown over the limit while editing: the refused save is shown, not swallowed")
    func grownOverTheLimit() {
        var model = Fixtures.editor("notes", filePath: "notes.txt", width: 60)
        #expect(model.type("!") == [.publish])
        let error = HandoffError.stateTooLarge(bytes: 17 * Self.mib, limit: 16 * Self.mib)
        model.send(.publishFailed(error.description))
        #expect(Array(model.screen.suffix(2)) == [
            "⚠ Not handed off: The activity record is 17 MB encoded; Bat…",
            " Editor · alice@laptop · 2 peers · online · ⚠ not handed off",
        ])
        // Edits keep trying to publish; one that fits clears the problem.
        #expect(model.press(.backspace) == [.publish])
        model.send(.published)
        #expect(!model.screen[9].contains("not handed off"))
    }
}
