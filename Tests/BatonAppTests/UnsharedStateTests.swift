import FoundationEssentials
import Testing
@testable import BatonApp

/// `EditorState.unshared()`: the snapshot the Program keeps for the saves of a large buffer is
/// made so, so that the editor's next key finds its arrays its own and copies none of them.
@Suite("Unshared editor states")
struct UnsharedStateTests {
    @Test("An unshared state holds the same text, version, cursor and history in arrays of its own; an edit to either leaves the other as it was")
    func unsharedState() {
        let text = (0..<2_000).map { "line \($0) with 中文 and 👋" }.joined(separator: "\n")
        var state = EditorState(text: text, filePath: nil, fileName: "notes.txt")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        state.buffer.move(to: TextPosition(line: 700, column: 3))
        _ = BatonApp.edit(&state, .typing, lines: 700...700, now: now) { $0.insert("typed") }
        let copy = state
        #expect(copy.buffer.rope.sharesArrays(with: state.buffer.rope), "a plain copy shares them")
        let snapshot = state.unshared()
        #expect(!snapshot.buffer.rope.sharesArrays(with: state.buffer.rope))
        #expect(snapshot == state)
        #expect(snapshot.buffer.version == state.buffer.version)
        #expect(snapshot.buffer.isTextKept == state.buffer.isTextKept)
        #expect(snapshot.history.undoSteps == state.history.undoSteps)

        // The editor goes on; the snapshot stays as it was, and the other way round.
        _ = BatonApp.edit(&state, .typing, lines: 700...700, now: now) { $0.insert("more\n") }
        #expect(snapshot.buffer.text == copy.buffer.text)
        #expect(snapshot.history.undoSteps == copy.history.undoSteps)
        var other = snapshot
        other.buffer.move(to: TextPosition(line: 0, column: 0))
        other.buffer.insert("x")
        #expect(state.buffer.line(0) == Array("line 0 with 中文 and 👋"))
        #expect(state.buffer.lineText(700) == "lintypedmore")
    }

    @Test("A joined text stays kept in the unshared copy: its version is the buffer's")
    func keptText() {
        var buffer = TextBuffer(text: "one\ntwo\nthree")
        buffer.insert("x")
        #expect(!buffer.isTextKept)
        _ = buffer.text
        let snapshot = buffer.unshared()
        #expect(snapshot.isTextKept)
        #expect(snapshot.text == "xone\ntwo\nthree")
    }
}
