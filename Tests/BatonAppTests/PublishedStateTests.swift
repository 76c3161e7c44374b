import Foundation
import Testing
import TerminalUI
@testable import BatonApp

/// When the editor publishes: on every change of text, cursor or name, and never for
/// messages that change none of them; the text is compared by its version, not its bytes.
@Suite("What the editor publishes, and when")
struct PublishedStateTests {
    @Test("Typing, moving and deleting publish; ticks, resizes and nearby changes do not")
    func publishOnChangesOnly() {
        var model = Fixtures.editor("héllo\nwörld 👋")
        #expect(model.send(.key(.character("x"))).first == .publish)
        #expect(model.send(.key(.backspace)).first == .publish)
        #expect(model.send(.key(.right)).first == .publish)
        // Backspace at the very start changes nothing, so nothing is published.
        _ = model.send(.key(.left))
        #expect(!model.send(.key(.backspace)).contains(.publish))
        #expect(!model.send(.tick(Fixtures.start.addingTimeInterval(1))).contains(.publish))
        #expect(!model.send(.resize(TerminalSize(width: 50, height: 12))).contains(.publish))
        #expect(!model.send(.nearbyChanged([])).contains(.publish))
    }

    @Test("Every edit gives the text a new version; copies keep theirs; equal text compares equal")
    func versions() {
        var a = TextBuffer(text: "one\ntwo")
        let before = a.version
        let copy = a
        #expect(copy.version == before)
        a.insert("x")
        #expect(a.version != before)
        #expect(a.text == "xone\ntwo")
        a.move(to: TextPosition(line: 0, column: 1))
        let moved = a.version
        let removed = a.backspace()
        #expect(removed)
        #expect(a.version != moved)
        // Built apart, the same text and cursor are equal whatever their versions.
        #expect(a == TextBuffer(text: "one\ntwo"))
        #expect(a.version != TextBuffer(text: "one\ntwo").version)
    }
}
