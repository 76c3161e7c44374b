import Foundation
import Testing
import PropertyList
@testable import BatonApp

@Suite("Undo history in the editing activity")
struct UndoHistoryActivityTests {
    /// What the first machine publishes after typing two runs.
    static func firstMachine() -> AppModel {
        var model = Fixtures.editor("notes\n")
        model.type("hello")
        model.send(.tick(Fixtures.start.addingTimeInterval(1)), .tick(Fixtures.start.addingTimeInterval(2)))
        model.press(.enter)
        model.type("world")
        return model
    }

    static func continued(_ userInfo: [String: PropertyListValue]) -> AppModel {
        guard let session = Session(activityType: Session.editingActivityType, userInfo: userInfo, from: "alice") else {
            Issue.record("not continued")
            return Fixtures.editor()
        }
        return Fixtures.model(session)
    }

    @Test("Ctrl-Z on the continuing machine undoes the first machine's typing, step by step")
    func travels() {
        let first = Self.firstMachine()
        let userInfo = first.session.userInfo
        #expect(userInfo["undoHistory"]?.arrayValue?.count == 2)
        var second = Self.continued(userInfo)
        #expect(second.editorState.buffer.text == "hello\nworldnotes\n")
        second.press(.control("z"))
        #expect(second.editorState.buffer.text == "hellonotes\n")
        #expect(second.editorState.buffer.cursor == TextPosition(line: 0, column: 5))
        second.press(.control("z"))
        #expect(second.editorState.buffer.text == "notes\n")
        second.press(.control("z"))
        #expect(second.editorState.findResult == "nothing to undo")
        second.press(.control("y"), .control("y"))
        #expect(second.editorState.buffer.text == "hello\nworldnotes\n")
    }

    @Test("An older peer's activity (no undoHistory) continues with nothing to undo")
    func absent() {
        var userInfo = Self.firstMachine().session.userInfo
        userInfo["undoHistory"] = nil
        let second = Self.continued(userInfo)
        #expect(second.editorState.history.undoSteps.isEmpty)
        #expect(second.editorState.buffer.text == "hello\nworldnotes\n")
    }

    @Test("Hostile or mismatched histories are dropped whole; the text stays as sent")
    func hostile() {
        let good = Self.firstMachine().session.userInfo
        guard case .array(let steps)? = good["undoHistory"], case .dictionary(let last)? = steps.last else {
            Issue.record("no history sent")
            return
        }
        func with(_ change: (inout [String: PropertyListValue]) -> Void) -> PropertyListValue {
            var entry = last
            change(&entry)
            return .array(Array(steps.dropLast()) + [.dictionary(entry)])
        }
        let hostile: [(String, PropertyListValue)] = [
            ("not an array", .string("undo")),
            ("an element not a dictionary", .array([.integer(1)])),
            ("a missing key", with { $0["removed"] = nil }),
            ("a line of the wrong type", with { $0["line"] = .string("0") }),
            ("no lines removed", with { $0["removed"] = .array([]) }),
            ("a line break inside a line", with { $0["removed"] = .array([.string("a\nb")]) }),
            ("a negative line", with { $0["line"] = .integer(-1) }),
            ("a line past the text", with { $0["line"] = .integer(.max) }),
            ("inserted lines not in the text", with { $0["inserted"] = .array([.string("other")]) }),
            ("too many steps", .array(Array(repeating: steps[0], count: EditHistory.maxSentSteps + 1))),
            ("too many bytes", with {
                $0["removed"] = .array([.string(String(repeating: "x", count: EditHistory.maxSentBytes + 1))])
            }),
        ]
        for (name, value) in hostile {
            var userInfo = good
            userInfo["undoHistory"] = value
            var second = Self.continued(userInfo)
            #expect(second.editorState.history.undoSteps.isEmpty, "\(name)")
            second.press(.control("z"))
            #expect(second.editorState.buffer.text == "hello\nworldnotes\n", "\(name)")
        }
        // Cursor positions far outside the text are clamped, not trusted.
        var userInfo = good
        userInfo["undoHistory"] = with { $0["cursorBeforeLine"] = .integer(.max); $0["cursorBeforeColumn"] = .integer(.min) }
        var second = Self.continued(userInfo)
        second.press(.control("z"))
        #expect(second.editorState.buffer.text == "hellonotes\n")
        #expect(second.editorState.buffer.cursor == TextPosition(line: 1, column: 0))
    }

    @Test("At most the last 100 steps are sent")
    func boundedWhenSent() {
        var model = Fixtures.editor()
        for _ in 0..<(EditHistory.maxSentSteps + 20) {
            model.type("a")
            model.press(.left, .right)  // a cursor move: every letter is its own step
        }
        let sent = model.session.userInfo["undoHistory"]?.arrayValue
        #expect(sent?.count == EditHistory.maxSentSteps)
        var second = Self.continued(model.session.userInfo)
        #expect(second.editorState.history.undoSteps.count == EditHistory.maxSentSteps)
        for _ in 0..<EditHistory.maxSentSteps { second.press(.control("z")) }
        #expect(second.editorState.buffer.text == String(repeating: "a", count: 20))
    }
}
