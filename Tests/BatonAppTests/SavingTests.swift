import Testing
import TerminalUI
@testable import BatonApp

@Suite("Saving and quitting")
struct SavingTests {
    @Test("Ctrl-S with a path saves there without replacing; fileSaved clears dirty and shows a notice")
    func saveWithPath() {
        var model = Fixtures.editor("hello", filePath: "docs/notes.txt", isDirty: true)
        #expect(model.editorState.fileName == "notes.txt")
        #expect(model.press(.control("s")) == [.saveFile(path: "docs/notes.txt", text: "hello", replaceExisting: false)])
        #expect(model.send(.fileSaved(path: "docs/notes.txt")) == [])
        #expect(model.editorState.isDirty == false)
        #expect(model.notice?.text == "Saved docs/notes.txt")
        #expect(model.pendingSave == nil)
    }

    @Test("Edits made while a save is under way keep the editor dirty")
    func editDuringSave() {
        var model = Fixtures.editor("hello", filePath: "notes.txt", isDirty: true)
        model.press(.control("s"))
        model.type("!")
        model.send(.fileSaved(path: "notes.txt"))
        #expect(model.editorState.isDirty)
    }

    @Test("Keys typed before a save's outcome wait for it: a y answers the read-only question instead of being typed")
    func keysWaitForTheSaveOutcome() {
        var model = Fixtures.editor("hello", filePath: "locked.txt", isDirty: true)
        #expect(model.press(.control("s")) == [.saveFile(path: "locked.txt", text: "hello", replaceExisting: false)])
        #expect(model.isAwaitingSave)
        #expect(model.press(.character("y")) == [])
        #expect(model.type("!") == [])
        #expect(model.editorState.buffer.text == "hello", "a key typed before the outcome changed the text")
        #expect(model.heldInput == [.key(.character("y")), .key(.character("!"))])
        // The outcome opens the question; the held y answers it, and the ! waits for that save.
        #expect(model.send(.saveReadOnly(path: "locked.txt")) == [.saveFile(path: "locked.txt", text: "hello", replaceExisting: true)])
        #expect(model.overlay == nil)
        #expect(model.heldInput == [.key(.character("!"))])
        #expect(model.send(.fileSaved(path: "locked.txt", isReadOnly: true)) == [.publish])
        #expect(model.editorState.buffer.text == "!hello")
        #expect(model.heldInput.isEmpty)
        #expect(!model.isAwaitingSave)
    }

    @Test("A paste and an n held behind Ctrl-S: the n declines the replace question, the paste is text after it")
    func heldPasteAndDecline() {
        var model = Fixtures.editor("hello", filePath: "notes.txt", isDirty: true)
        model.press(.control("s"))
        model.press(.character("n"))
        model.send(.paste("pasted "))
        model.send(.saveNeedsConfirmation(path: "notes.txt"))
        #expect(model.overlay == nil)
        #expect(model.pendingSave == nil)
        #expect(model.editorState.buffer.text == "pasted hello")
        #expect(model.editorState.isDirty)
    }

    @Test("A failed save lets the held keys through as text")
    func heldKeysAfterAFailure() {
        var model = Fixtures.editor("hello", filePath: "notes.txt", isDirty: true)
        model.press(.control("s"))
        model.type("ab")
        #expect(model.send(.fileSaveFailed("Cannot save notes.txt: No space left on device.")) == [.publish])
        #expect(model.editorState.buffer.text == "abhello")
        #expect(model.notice?.kind == .problem)
    }

    @Test("Saved as a file of one's own, a read-only buffer's title drops [read-only]; written anyway, it keeps it")
    func readOnlyMarkFollowsTheFile() {
        var model = Fixtures.model(.editor(EditorState(text: "x", filePath: "locked.txt", isReadOnly: true)), width: 60)
        #expect(model.screen.joined().contains("[read-only]"))
        model.press(.control("o"))
        model.type("mine.txt")
        model.press(.enter)
        model.send(.fileSaved(path: "mine.txt", isReadOnly: false))
        #expect(!model.editorState.isReadOnly)
        #expect(!model.screen.joined().contains("[read-only]"))
        model.press(.control("s"))
        model.send(.fileSaved(path: "mine.txt", isReadOnly: true))
        #expect(model.screen.joined().contains("[read-only]"))
    }

    @Test("Ctrl-S without a name opens Save as; Enter saves and names the buffer, which publishes")
    func saveAs() {
        var model = Fixtures.editor("draft", isDirty: true)
        #expect(model.press(.control("s")) == [])
        #expect(model.overlay == .prompt(.saveAs()))
        model.type("notes.txt")
        #expect(model.press(.enter) == [.saveFile(path: "notes.txt", text: "draft", replaceExisting: false)])
        #expect(model.overlay == nil)
        #expect(model.send(.fileSaved(path: "notes.txt")) == [.publish])
        #expect(model.editorState.filePath == "notes.txt")
        #expect(model.editorState.fileName == "notes.txt")
        #expect(model.session.title == "Editing notes.txt")
        // Now it has a path: Ctrl-S saves at once.
        #expect(model.press(.control("s")) == [.saveFile(path: "notes.txt", text: "draft", replaceExisting: false)])
    }

    @Test("Save as refuses folders, empty names, . and ..; the answer stays editable")
    func saveAsRefusals() {
        var model = Fixtures.editor("x", isDirty: true)
        model.press(.control("s"))
        model.type("docs/")
        #expect(model.press(.enter) == [])
        #expect(model.openPrompt?.problem == FileNameProblem.folder("docs/").description)
        #expect(model.openPrompt?.field.text == "docs/")
        model.type("evil")
        #expect(model.openPrompt?.field.text == "docs/evil")
        #expect(model.openPrompt?.problem == nil)
        #expect(model.press(.enter) == [.saveFile(path: "docs/evil", text: "x", replaceExisting: false)])
        for bad in ["", "   ", ".", "..", "a/..", "/", "a/./", "x\u{200B}/y"] {
            var other = Fixtures.editor("x", isDirty: true)
            other.press(.control("s"))
            other.type(bad)
            #expect(other.press(.enter) == [], "\(bad.debugDescription) was accepted")
        }
    }

    @Test("Esc cancels Save as without saving")
    func saveAsCancel() {
        var model = Fixtures.editor("x", isDirty: true)
        model.press(.control("s"))
        model.type("name")
        #expect(model.press(.escape) == [])
        #expect(model.overlay == nil)
        #expect(model.pendingSave == nil)
        #expect(model.editorState.isDirty)
    }

    @Test("An existing, different file: y replaces it, n keeps it")
    func confirmation() {
        var model = Fixtures.editor("mine", filePath: "notes.txt", isDirty: true)
        model.press(.control("s"))
        #expect(model.send(.saveNeedsConfirmation(path: "notes.txt")) == [])
        #expect(model.overlay == .confirm(.replaceFile(path: "notes.txt")))
        #expect(model.press(.character("x")) == [])
        #expect(model.press(.character("y")) == [.saveFile(path: "notes.txt", text: "mine", replaceExisting: true)])
        model.send(.fileSaved(path: "notes.txt"))
        #expect(model.editorState.isDirty == false)

        model.type("!")
        model.press(.control("s"))
        model.send(.saveNeedsConfirmation(path: "notes.txt"))
        #expect(model.press(.character("n")) == [])
        #expect(model.overlay == nil)
        #expect(model.pendingSave == nil)
        #expect(model.editorState.isDirty)
    }

    @Test("Ctrl-O asks for a name even with a path, prefilled with the path")
    func saveAsWithPath() {
        var model = Fixtures.editor("x", filePath: "a/notes.txt")
        model.press(.control("o"))
        #expect(model.overlay == .prompt(.saveAs(suggestion: "a/notes.txt")))
        model.press(.backspace, .backspace, .backspace)
        model.type("md")
        #expect(model.press(.enter) == [.saveFile(path: "a/notes.md", text: "x", replaceExisting: false)])
    }

    @Test("Ctrl-O takes a relative or an absolute path; the title then shows the path, the activity the base name")
    func saveAsPaths() {
        for path in ["../drafts/plan.txt", "/tmp/baton-notes/plan.txt"] {
            var model = Fixtures.editor("plan", isDirty: true, width: 50, height: 10)
            model.press(.control("o"))
            model.type(path)
            #expect(model.press(.enter) == [.saveFile(path: path, text: "plan", replaceExisting: false)])
            model.send(.fileSaved(path: path))
            #expect(model.editorState.filePath == path)
            #expect(model.editorState.fileName == "plan.txt")
            #expect(model.session.userInfo["fileName"] == .string("plan.txt"))
            #expect(model.screen[0].hasPrefix(" \(path)   "), "\(model.screen[0])")
        }
    }

    @Test("A read-only file: the title says [read-only], and saving asks before writing it anyway")
    func readOnly() {
        let state = EditorState(text: "mine", filePath: "notes.txt", isReadOnly: true)
        var model = Fixtures.model(.editor(state), width: 40, height: 10)
        #expect(model.screen[0].hasPrefix(" notes.txt [read-only]   "), "\(model.screen[0])")
        model.type("!")
        #expect(model.press(.control("s")) == [.saveFile(path: "notes.txt", text: "!mine", replaceExisting: false)])
        #expect(model.send(.saveReadOnly(path: "notes.txt")) == [])
        #expect(model.overlay == .confirm(.replaceReadOnlyFile(path: "notes.txt")))
        #expect(model.press(.character("y")) == [.saveFile(path: "notes.txt", text: "!mine", replaceExisting: true)])
        model.send(.fileSaved(path: "notes.txt"))
        #expect(model.editorState.isDirty == false)
    }

    @Test("A CRLF file: the status bar says DOS, saves write CR LF, the activity says crlf and a continued copy keeps it")
    func crlf() throws {
        let state = EditorState(text: "one\ntwo", filePath: "dos.txt", lineEnding: .crlf)
        var model = Fixtures.model(.editor(state), width: 40, height: 5)
        #expect(model.screen[4].contains("DOS"), "\(model.screen[4])")
        model.type("1")
        #expect(model.press(.control("s")) == [.saveFile(path: "dos.txt", text: "1one\r\ntwo", replaceExisting: false)])
        model.send(.fileSaved(path: "dos.txt"))
        #expect(model.editorState.isDirty == false)
        #expect(model.session.userInfo["lineEnding"] == .string("crlf"))
        #expect(Fixtures.editor("x").session.userInfo["lineEnding"] == nil)
        let continued = try #require(Session(
            activityType: Session.editingActivityType, userInfo: model.session.userInfo, from: "bob"))
        guard case .editor(let copy) = continued else { Issue.record("not an editor"); return }
        #expect(copy.lineEnding == .crlf)
        #expect(copy.buffer.text == "1one\ntwo")
        var continuedModel = Fixtures.model(continued)
        #expect(continuedModel.press(.control("s")) == [.saveFile(path: "dos.txt", text: "1one\r\ntwo", replaceExisting: false)])
        let plain = try #require(Session(
            activityType: Session.editingActivityType, userInfo: ["text": "a", "cursorLine": 0, "cursorColumn": 0, "lineEnding": "weird"],
            from: nil))
        guard case .editor(let lf) = plain else { Issue.record("not an editor"); return }
        #expect(lf.lineEnding == .lf)
    }

    @Test("A failed save shows why and keeps the changes")
    func saveFailed() {
        var model = Fixtures.editor("x", filePath: "/ro/notes.txt", isDirty: true)
        model.press(.control("s"))
        model.send(.fileSaveFailed("Cannot save /ro/notes.txt: Read-only file system."))
        #expect(model.notice == Notice("Not saved: Cannot save /ro/notes.txt: Read-only file system.", kind: .problem, shownAt: Fixtures.start))
        #expect(model.editorState.isDirty)
        #expect(model.pendingSave == nil)
    }

    @Test("Ctrl-Q with no unsaved changes quits at once")
    func quitClean() {
        var model = Fixtures.editor("x")
        #expect(model.press(.control("q")) == [.quit])
        #expect(model.isQuitting)
    }

    @Test("Ctrl-Q with unsaved changes, y: saves, then quits once saved")
    func quitYes() {
        var model = Fixtures.editor("x", filePath: "notes.txt", isDirty: true)
        #expect(model.press(.control("q")) == [])
        #expect(model.overlay == .confirm(.quitWithUnsavedChanges))
        #expect(model.press(.character("y")) == [.saveFile(path: "notes.txt", text: "x", replaceExisting: false)])
        #expect(model.isQuitting == false)
        #expect(model.send(.fileSaved(path: "notes.txt")) == [.quit])
        #expect(model.isQuitting)
    }

    @Test("Ctrl-Q, y without a name asks for one, then saves and quits")
    func quitYesUnnamed() {
        var model = Fixtures.editor("x", isDirty: true)
        model.press(.control("q"), .character("y"))
        #expect(model.overlay == .prompt(.saveAs(thenQuit: true)))
        model.type("out.txt")
        #expect(model.press(.enter) == [.saveFile(path: "out.txt", text: "x", replaceExisting: false)])
        #expect(model.send(.fileSaved(path: "out.txt")) == [.quit])
    }

    @Test("Ctrl-Q, y, then a failed save: stays, with the changes")
    func quitYesFails() {
        var model = Fixtures.editor("x", filePath: "notes.txt", isDirty: true)
        model.press(.control("q"), .character("y"))
        #expect(model.send(.fileSaveFailed("Disk full.")) == [])
        #expect(model.isQuitting == false)
        #expect(model.editorState.isDirty)
    }

    @Test("Ctrl-Q, y, existing file, y: replaces it and quits")
    func quitYesReplace() {
        var model = Fixtures.editor("x", filePath: "notes.txt", isDirty: true)
        model.press(.control("q"), .character("y"))
        model.send(.saveNeedsConfirmation(path: "notes.txt"))
        #expect(model.press(.character("y")) == [.saveFile(path: "notes.txt", text: "x", replaceExisting: true)])
        #expect(model.send(.fileSaved(path: "notes.txt")) == [.quit])
    }

    @Test("Ctrl-Q with unsaved changes, n: quits without saving")
    func quitNo() {
        var model = Fixtures.editor("x", isDirty: true)
        model.press(.control("q"))
        #expect(model.press(.character("n")) == [.quit])
        #expect(model.isQuitting)
    }

    @Test("Input closing quits at once, even with unsaved changes and a question open, and only once")
    func inputClosed() {
        var model = Fixtures.editor("x", isDirty: true)
        model.press(.control("q"))
        #expect(model.overlay == .confirm(.quitWithUnsavedChanges))
        #expect(model.send(.inputClosed) == [.quit])
        #expect(model.isQuitting)
        #expect(model.overlay == nil)
        #expect(model.editorState.isDirty, "nothing is saved on the way out: nobody said to")
        #expect(model.send(.inputClosed) == [])
    }

    @Test("Ctrl-Q with unsaved changes, c or Esc: back to editing")
    func quitCancel() {
        for key in [Key.character("c"), .escape] {
            var model = Fixtures.editor("x", isDirty: true)
            model.press(.control("q"))
            #expect(model.press(key) == [])
            #expect(model.overlay == nil)
            #expect(model.isQuitting == false)
            model.type("y")
            #expect(model.editorState.buffer.text == "yx")
        }
    }

    @Test("A continued editor saves to the base name of the peer's file name, never its path")
    func continuedSave() throws {
        let session = try #require(Session(
            activityType: "dev.baton.editing",
            userInfo: ["text": "secret", "cursorLine": 0, "cursorColumn": 0, "fileName": "../../etc/passwd"],
            from: "mallory@evil"))
        var model = Fixtures.model(session)
        #expect(model.editorState.filePath == nil)
        #expect(model.press(.control("s")) == [.saveFile(path: "passwd", text: "secret", replaceExisting: false)])
    }

    @Test("A continued editor with a hidden or missing file name asks for one")
    func continuedSaveAsks() throws {
        let hidden = try #require(Session(
            activityType: "dev.baton.editing",
            userInfo: ["text": "x", "cursorLine": 0, "cursorColumn": 0, "fileName": "~/.profile"], from: "m@e"))
        var model = Fixtures.model(hidden)
        #expect(model.press(.control("s")) == [])
        #expect(model.overlay == .prompt(.saveAs(suggestion: ".profile")))
        let unnamed = try #require(Session(
            activityType: "dev.baton.editing",
            userInfo: ["text": "x", "cursorLine": 0, "cursorColumn": 0, "fileName": ".."], from: "m@e"))
        var other = Fixtures.model(unnamed)
        #expect(other.press(.control("s")) == [])
        #expect(other.overlay == .prompt(.saveAs()))
    }
}
