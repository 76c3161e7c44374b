import Foundation
@testable import Handoff
import Testing
@testable import BatonApp

@Suite("Sessions as activities")
struct SessionActivityTests {
    @Test("A counter round-trips through its userInfo")
    func counterRoundTrip() throws {
        let session = Session.counter(CounterState(count: -42))
        #expect(session.activityType == "dev.baton.counter")
        #expect(session.title == "Counter: -42")
        #expect(session.userInfo == ["count": .integer(-42)])
        let back = try #require(Session(activityType: session.activityType, userInfo: session.userInfo, from: "bob@desk"))
        #expect(back == session)
    }

    @Test("An editor round-trips text, cursor (in Characters) and file name, and remembers the peer")
    func editorRoundTrip() throws {
        let state = EditorState(
            buffer: TextBuffer(text: "line one\n你好，wörld 👋", cursor: TextPosition(line: 1, column: 10)),
            filePath: "/home/alice/notes.txt")
        let session = Session.editor(state)
        #expect(session.activityType == "dev.baton.editing")
        #expect(session.title == "Editing notes.txt")
        #expect(session.userInfo == [
            "text": "line one\n你好，wörld 👋", "cursorLine": 1, "cursorColumn": 10, "fileName": "notes.txt",
        ])
        let back = try #require(Session(activityType: session.activityType, userInfo: session.userInfo, from: "alice@laptop"))
        let restored = try #require(back.editorState)
        #expect(restored.buffer.text == state.buffer.text)
        #expect(restored.buffer.cursor == TextPosition(line: 1, column: 10))
        #expect(restored.fileName == "notes.txt")
        #expect(restored.filePath == nil)
        #expect(restored.continuedFrom == "alice@laptop")
        #expect(restored.isDirty)
        #expect(back.userInfo == session.userInfo)
    }

    @Test("The selection, the search and its options, and the display toggles travel (issue 38); a mark alone or at the cursor is no selection")
    func selectionSearchAndDisplayTravel() throws {
        var state = EditorState(buffer: TextBuffer(text: "one two\nthree", cursor: TextPosition(line: 1, column: 2)), filePath: nil)
        state.mark = TextPosition(line: 0, column: 4)
        state.lastSearch = "t[wh]"
        state.searchOptions = SearchOptions(caseSensitive: true, regularExpression: true)
        state.display = EditorDisplay(lineNumbers: true, softWrap: true, constantShow: true)
        let info = Session.editor(state).userInfo
        #expect(info["markLine"] == 0 && info["markColumn"] == 4)
        #expect(info["searchText"] == "t[wh]")
        #expect(info["searchCaseSensitive"] == .boolean(true) && info["searchRegexp"] == .boolean(true))
        #expect(info["lineNumbers"] == .boolean(true) && info["softWrap"] == .boolean(true))
        #expect(info["constantShow"] == .boolean(true))
        let back = try #require(Session(activityType: "dev.baton.editing", userInfo: info, from: "alice@laptop")?.editorState)
        #expect(back.selection?.start == TextPosition(line: 0, column: 4))
        #expect(back.selection?.end == TextPosition(line: 1, column: 2))
        #expect(!back.isShiftMark)
        #expect(back.lastSearch == "t[wh]")
        #expect(back.searchOptions == state.searchOptions)
        #expect(back.display == state.display)

        // Nothing selected, no search, nothing shown differently: none of the keys.
        let plain = Session.editor(EditorState(text: "x", filePath: nil)).userInfo
        for key in ["markLine", "markColumn", "searchText", "searchCaseSensitive", "searchRegexp", "lineNumbers", "softWrap", "constantShow"] {
            #expect(plain[key] == nil, "\(key) sent without a reason")
        }
        // A mark alone, or one that clamps onto the cursor, selects nothing.
        var alone = info
        alone["markColumn"] = nil
        #expect(Session(activityType: "dev.baton.editing", userInfo: alone, from: nil)?.editorState?.mark == nil)
        var onCursor = info
        onCursor["markLine"] = 1
        onCursor["markColumn"] = 2
        #expect(Session(activityType: "dev.baton.editing", userInfo: onCursor, from: nil)?.editorState?.mark == nil)
    }

    @Test("An unnamed editor has no fileName key and says so in its title")
    func unnamed() {
        let session = Session.editor(EditorState(text: "", filePath: nil))
        #expect(session.title == "Editing (unnamed)")
        #expect(session.userInfo["fileName"] == nil)
    }

    @Test("Hostile file names give a safe base name or none", arguments: [
        ("../../x", "x"),
        ("/etc/passwd", "passwd"),
        ("../../etc/passwd", "passwd"),
        ("dir\\..\\win.ini", "win.ini"),
        ("notes.txt", "notes.txt"),
        ("", nil),
        ("..", nil),
        (".", nil),
        ("a/..", nil),
        ("///", nil),
        ("bad\u{1B}[31m.txt", nil),
        ("notes\u{200B}.txt", nil),
        ("\u{202E}txt.exe", nil),
        ("\u{3164}", nil),
        ("tag\u{E0041}.txt", nil),
        ("👨\u{200D}👩\u{200D}👧 ❤\u{FE0F}.txt", "👨\u{200D}👩\u{200D}👧 ❤\u{FE0F}.txt"),
        (String(repeating: "n", count: 300), nil),
    ] as [(String, String?)])
    func hostileFileNames(name: String, expected: String?) throws {
        let session = try #require(Session(
            activityType: "dev.baton.editing", userInfo: ["text": "t", "cursorLine": 0, "cursorColumn": 0, "fileName": .string(name)],
            from: "mallory@evil"))
        let state = try #require(session.editorState)
        #expect(state.fileName == expected)
        #expect(state.filePath == nil)
        #expect(state.savePath == expected)
    }

    @Test("The cursor from a peer is clamped into the text")
    func clampedCursor() throws {
        let far = try #require(Session(
            activityType: "dev.baton.editing", userInfo: ["text": "ab\n中", "cursorLine": 99, "cursorColumn": 99], from: nil))
        #expect(far.editorState?.buffer.cursor == TextPosition(line: 1, column: 1))
        let negative = try #require(Session(
            activityType: "dev.baton.editing", userInfo: ["text": "ab", "cursorLine": -3, "cursorColumn": .integer(.min)], from: nil))
        #expect(negative.editorState?.buffer.cursor == TextPosition(line: 0, column: 0))
        let extreme = try #require(Session(
            activityType: "dev.baton.editing", userInfo: ["text": "ab", "cursorLine": .integer(.max), "cursorColumn": .integer(.max)], from: nil))
        #expect(extreme.editorState?.buffer.cursor == TextPosition(line: 0, column: 2))
    }

    @Test("Unknown types and missing or mistyped state give no session")
    func refusals() {
        #expect(Session(activityType: "dev.baton.other", userInfo: ["count": 1], from: nil) == nil)
        #expect(Session(activityType: "dev.baton.counter", userInfo: [:], from: nil) == nil)
        #expect(Session(activityType: "dev.baton.counter", userInfo: ["count": "5"], from: nil) == nil)
        #expect(Session(activityType: "dev.baton.editing", userInfo: ["cursorLine": 0], from: nil) == nil)
        #expect(Session(activityType: "dev.baton.editing", userInfo: ["text": 3], from: nil) == nil)
    }
}

/// Where a continued text is saved (docs/PROTOCOL.md §11, `filePath` and `fileDigest`).
@Suite("The file path that travels with an editing session")
struct FilePathHintTests {
    @Test("Only a relative path with plain components travels; ./ is dropped", arguments: [
        ("proj/src/main.c", "proj/src/main.c"), ("./notes.txt", "notes.txt"), ("notes.txt", "notes.txt"),
        ("/etc/passwd", nil), ("../notes.txt", nil), ("a/../b", nil), ("a//b", nil), ("a/./b", nil), ("a\\b", nil),
        ("docs/", nil), ("", nil), ("x\u{202E}y/z", nil),
    ] as [(String, String?)])
    func shareable(path: String, expected: String?) {
        #expect(FileNames.shareablePath(path) == expected)
    }

    @Test("An editor with its own relative file publishes its path and its bytes' digest; an absolute one publishes neither")
    func published() {
        let stamp = FileStamp(size: 3, modifiedSeconds: 1, modifiedNanoseconds: 0, digest: 0xFEDC_BA98_7654_3210)
        let relative = Session.editor(EditorState(text: "abc", filePath: "proj/src/main.c", disk: stamp))
        #expect(relative.userInfo["filePath"] == "proj/src/main.c")
        #expect(relative.userInfo["fileDigest"] == .integer(Int(Int64(bitPattern: 0xFEDC_BA98_7654_3210))))
        let absolute = Session.editor(EditorState(text: "abc", filePath: "/home/alice/main.c", disk: stamp))
        #expect(absolute.userInfo["filePath"] == nil)
        #expect(absolute.userInfo["fileDigest"] == nil)
        let new = Session.editor(EditorState(text: "abc", filePath: "new.txt"))
        #expect(new.userInfo["filePath"] == "new.txt")
        #expect(new.userInfo["fileDigest"] == nil, "a file never read or written here has no digest")
    }

    @Test("A continued text keeps the hints it came with and sends them on until it is saved here; a hostile path is dropped")
    func forwarded() throws {
        var info = Session.editor(EditorState(text: "abc", filePath: "proj/src/main.c",
            disk: FileStamp(size: 3, modifiedSeconds: 1, modifiedNanoseconds: 0, digest: 42))).userInfo
        let continued = try #require(Session(activityType: Session.editingActivityType, userInfo: info, from: "bob@desk"))
        let state = try #require(continued.editorState)
        #expect(state.filePath == nil, "a peer's path is never used as it came")
        #expect(state.pathHint == "proj/src/main.c")
        #expect(state.digestHint == 42)
        #expect(continued.userInfo["filePath"] == "proj/src/main.c")
        #expect(continued.userInfo["fileDigest"] == 42)

        var model = Fixtures.model(continued)
        model.press(.control("s"))
        model.send(.fileSaved(path: "main.c"))
        #expect(model.editorState.pathHint == nil && model.editorState.digestHint == nil)
        #expect(model.session.userInfo["filePath"] == "main.c")

        info["filePath"] = "../../.ssh/authorized_keys"
        let hostile = try #require(Session(activityType: Session.editingActivityType, userInfo: info, from: "mallory@x"))
        #expect(hostile.editorState?.pathHint == nil)
        #expect(hostile.editorState?.digestHint == nil)
    }
}
