import Foundation
import Testing

extension LabFaultTests {
    /// The editor's undo that travels, its recovery copies, bracketed paste (issue 23) and the
    /// keys of issue 38 as tmux sends them, with `baton edit` in tmux panes on lab hosts; one
    /// test at a time.
    @Suite("Editor in the lab: undo that travels, recovery copies, paste, nano's keys (issues 23, 38)", .serialized, .timeLimit(.minutes(2)))
    struct EditorLab {
        @Test("Typed on h1, continued on h2: Ctrl-Z on h2 undoes h1's last typing, Ctrl-Y brings it back")
        func undoTravels() throws {
            try Stage.run(hosts: 3) { stage in
                let a = try stage.baton("a", on: 1, ["edit", "--name", "e2e-a"])
                try a.waitForScreen(containing: "(unnamed)")
                try a.type("alpha")
                try a.waitForScreen("a's first line to be alpha") { $0.count > 1 && $0[1] == "alpha" }
                // A cursor move ends the run of typing: " beta" is a step of its own.
                try a.press("Left")
                try a.press("Right")
                try a.type(" beta")
                try a.waitForScreen("a's first line to be alpha beta") { $0.count > 1 && $0[1] == "alpha beta" }
                try stage.listener.waitForEvent("e2e-a's text alpha beta") {
                    $0.peerName == "e2e-a" && $0.type == "dev.baton.editing" && $0.string("text") == "alpha beta"
                }

                let b = try stage.baton("b", on: 2, [
                    "--continue-activity", "dev.baton.editing", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
                ])
                try b.waitForScreen("b's first line to be alpha beta") { $0.count > 1 && $0[1] == "alpha beta" }
                try b.waitForScreen(containing: "from e2e-a")

                try b.press("C-z")
                let undone = try b.waitForScreen("b's first line to be alpha after Ctrl-Z") {
                    $0.count > 2 && $0[1] == "alpha"
                }
                #expect(undone[1] == "alpha", "after Ctrl-Z on h2:\n\(b.screenDump())")
                try stage.listener.waitForEvent("e2e-b's text alpha after Ctrl-Z") {
                    $0.peerName == "e2e-b" && $0.string("text") == "alpha"
                }

                try b.press("C-y")
                try b.waitForScreen("b's first line to be alpha beta again after Ctrl-Y") {
                    $0.count > 1 && $0[1] == "alpha beta"
                }
                try stage.listener.waitForEvent("e2e-b's text alpha beta after Ctrl-Y") {
                    $0.peerName == "e2e-b" && $0.string("text") == "alpha beta"
                }
            }
        }

        @Test("kill -9 after the recovery copy is written: the next `baton edit f.txt` asks, y brings the text back")
        func recoveryAfterKill() throws {
            try recovers(waitForCopy: true, signal: SIGKILL)
        }

        @Test("SIGHUP at once after typing (before the timer): the copy is written on the signal, and recovered")
        func recoveryAfterHangUp() throws {
            try recovers(waitForCopy: false, signal: SIGHUP)
        }

        @Test("A buffer with no unsaved changes leaves no recovery copy: cursor moves then SIGHUP, or then Ctrl-Q")
        func noCopyWithoutChanges() throws {
            try Stage.run(hosts: 2) { stage in
                let folder = try EditorFolder(stage)
                for (index, ending) in ["hup", "quit"].enumerated() {
                    let a = try folder.edit("a\(index)", "f.txt")
                    try a.waitForScreen(containing: "line 1 of the file")
                    try a.press("Down")
                    try a.press("Right")
                    // Ctrl-E, not End: tmux sends End as ESC [ 4 ~, which baton does not read as End.
                    try a.press("C-e")
                    try a.waitForCursor(x: 18, y: 2, "the end of the second line")
                    if ending == "hup" {
                        try a.kill(SIGHUP)
                    } else {
                        try a.press("C-q")
                    }
                    try a.waitForExit()
                    #expect(folder.copies().isEmpty,
                        "after \(ending) with no change, the recovery folder holds \(folder.copies())")
                    #expect(folder.file("f.txt") == EditorFolder.original, "f.txt changed")
                }
                // The check above can fail: the same steps after a change leave a copy.
                let c = try folder.edit("c", "f.txt")
                try c.waitForScreen(containing: "line 1 of the file")
                try c.type("x")
                try c.waitForScreen(containing: "[+]")
                try c.kill(SIGHUP)
                try c.waitForExit()
                #expect(folder.copies().count == 1, "after a change and SIGHUP: \(folder.copies())")
            }
        }

        @Test("End and Home from tmux (ESC [ 4 ~, ESC [ 1 ~, whatever TERM says) move the cursor and type nothing")
        func homeAndEndFromTmux() throws {
            try Stage.run(hosts: 1) { stage in
                let folder = try EditorFolder(stage)
                try Data("first line\nsecond\n".utf8).write(to: URL(fileURLWithPath: folder.path("keys.txt")))
                let a = try folder.edit("a", "keys.txt")
                try a.waitForScreen(containing: "first line")
                try a.press("End")
                try a.type("!")
                try a.waitForScreen("a's first line to end with !") { $0.count > 1 && $0[1] == "first line!" }
                try a.press("Home")
                try a.type(">")
                let screen = try a.waitForScreen("a's first line to start with >") { $0.count > 1 && $0[1] == ">first line!" }
                #expect(!screen.joined(separator: "\n").contains("[4~") && !screen.joined(separator: "\n").contains("[1~"),
                    "an escape sequence was typed as text:\n\(a.screenDump())")
            }
        }

        @Test("A 10 KB bracketed paste into a 1 KB file arrives whole (saved byte for byte); one Ctrl-Z removes all of it")
        func pasteIsOneEdit() throws {
            try Stage.run(hosts: 2) { stage in
                let folder = try EditorFolder(stage)
                let original = (1...16).map { String(format: "original %02d ", $0) + String(repeating: "o", count: 50) + "\n" }
                    .joined()
                #expect(original.utf8.count >= 1000 && original.utf8.count <= 1100)
                try Data(original.utf8).write(to: URL(fileURLWithPath: folder.path("one-k.txt")))
                let pasted = (1...100).map { String(format: "pasted %03d ", $0) + String(repeating: "p", count: 88) + "\n" }
                    .joined()
                #expect(pasted.utf8.count == 10_000)
                try Data(pasted.utf8).write(to: URL(fileURLWithPath: folder.path("paste.txt")))

                let a = try folder.edit("a", "one-k.txt")
                try a.waitForScreen(containing: "original 01")
                try stage.tmux.tmux(["load-buffer", "-b", "p", folder.path("paste.txt")])
                try stage.tmux.tmux(["paste-buffer", "-p", "-b", "p", "-t", "=a:"])
                // The cursor stays after the paste: its last line is on screen, above the file's first.
                let pastedScreen = try a.waitForScreen("the paste's last line above the file's first") { lines in
                    guard let last = lines.firstIndex(where: { $0.hasPrefix("pasted 100") }) else { return false }
                    return lines.count > last + 1 && lines[last + 1].hasPrefix("original 01")
                }
                let firstOriginal = try #require(pastedScreen.firstIndex { $0.hasPrefix("original 01") })
                try a.waitForCursor(x: 0, y: firstOriginal, "the start of line 101, the file's first")
                try a.press("C-s")
                try a.waitForScreen("a saved (no [+])") { $0.first.map { !$0.contains("[+]") } ?? false }
                let saved = folder.file("one-k.txt")
                #expect(saved == pasted + original,
                    "saved \(saved?.utf8.count ?? -1) bytes, want \((pasted + original).utf8.count)")

                try a.press("C-z")
                try a.waitForScreen("the file's first line at the top after one Ctrl-Z") { lines in
                    lines.count > 1 && lines[1].hasPrefix("original 01")
                }
                try a.waitForCursor(x: 0, y: 1, "the start of the text after one Ctrl-Z")
                try a.press("C-s")
                try a.waitForScreen("a saved again (no [+])") { $0.first.map { !$0.contains("[+]") } ?? false }
                #expect(folder.file("one-k.txt") == original, "after one Ctrl-Z the file is not the original")
            }
        }

        @Test("The answer in the same send-keys as the key that asks: C-s y writes a read-only file, C-q n quits unsaved; nothing is typed")
        func answerInTheSameBurst() throws {
            try Stage.run(hosts: 1) { stage in
                let folder = try EditorFolder(stage)
                try Data("locked line\n".utf8).write(to: URL(fileURLWithPath: folder.path("locked.txt")))
                #expect(chmod(folder.path("locked.txt"), 0o444) == 0)
                let a = try folder.edit("a", "locked.txt")
                try a.waitForScreen(containing: "[read-only]")
                try a.type("new ")
                try a.waitForScreen("a's first line to be new locked line") { $0.count > 1 && $0[1] == "new locked line" }
                try a.press("C-s", "y")
                try a.waitForScreen("a saved (no [+])") { $0.first.map { !$0.contains("[+]") } ?? false }
                #expect(folder.file("locked.txt") == "new locked line\n", "C-s y did not write the read-only file")
                let screen = try a.capture()
                #expect(screen.count > 1 && screen[1] == "new locked line", "the y was typed:\n\(a.screenDump())")

                try a.type("more ")
                try a.waitForScreen(containing: "[+]")
                try a.press("C-q", "n")
                try a.expectExit(0)
                #expect(folder.file("locked.txt") == "new locked line\n", "C-q n saved")
            }
        }

        @Test("Recovered after kill -9, then Ctrl-S at once: the file is right and the copy is gone")
        func saveRightAfterRecovering() throws {
            try Stage.run(hosts: 1) { stage in
                let folder = try EditorFolder(stage)
                let a = try folder.edit("a", "f.txt")
                try a.waitForScreen(containing: "line 1 of the file")
                try a.type("typed ")
                try Wait.until("a recovery copy", timeout: 5) { !folder.copies().isEmpty }
                try a.kill(SIGKILL)
                _ = try a.waitForExit()

                let b = try folder.edit("b", "f.txt")
                try b.waitForScreen("the recovery question") { $0.contains { $0.contains("Recover unsaved changes from") } }
                try b.type("y")
                try b.press("Enter")
                // Once the editor shows: before it, the terminal is still in line mode, where
                // Ctrl-S is the terminal's own XOFF and never reaches a program.
                try b.waitForScreen("the recovered buffer") { $0.count > 1 && $0[1] == "typed line 1 of the file" && $0[0].contains("[+]") }
                try b.press("C-s")
                try b.waitForScreen("b saved (no [+])") { $0.count > 1 && $0[1] == "typed line 1 of the file" && !$0[0].contains("[+]") }
                #expect(folder.file("f.txt") == "typed " + EditorFolder.original)
                try Wait.until("the recovery copy removed", timeout: 5) { folder.copies().isEmpty }
                try b.press("C-q")
                _ = try b.waitForExit()
                #expect(folder.copies().isEmpty, "a saved buffer left \(folder.copies())")
            }
        }

        @Test("Keys as tmux sends them: Ctrl-Right by word, Shift-End selects, Ctrl-K cuts the selection; Alt-R replaces; Ctrl-End")
        func nanoKeysThroughTmux() throws {
            try Stage.run(hosts: 1) { stage in
                let folder = try EditorFolder(stage)
                let a = try folder.edit("a", "f.txt")
                try a.waitForScreen(containing: "line 1 of the file")
                // "line 1 of the file": two words on, select to the line's end, cut it.
                try a.press("C-Right", "C-Right", "S-End", "C-k")
                try a.waitForScreen("the selection cut") {
                    $0.count > 1 && $0[1].trimmingCharacters(in: .whitespaces) == "line 1"
                }
                // Alt-R: replace "file" with "text", all of them.
                try a.press("M-r")
                try a.waitForScreen(containing: "Replace:")
                try a.type("FILE")
                try a.press("Enter")
                try a.waitForScreen(containing: "Replace with:")
                try a.type("text")
                try a.press("Enter")
                try a.waitForScreen(containing: "Replace this instance?")
                try a.type("a")
                try a.waitForScreen(containing: "replaced 1 occurrence")
                // Ctrl-End: the end of the text, where typing lands.
                try a.press("C-End")
                try a.type("end")
                try a.press("C-s")
                try Wait.until("the file saved", timeout: 10) {
                    folder.file("f.txt") == "line 1 \nline 2 of the text\nend"
                }
                try a.press("C-q")
                _ = try a.waitForExit()
            }
        }

        @Test("Alt-Z and other unknown Alt-keys from tmux type nothing and say so; TERM=dumb is refused before the screen starts")
        func unknownAltKeysAndDumbTerminal() throws {
            try Stage.run(hosts: 1) { stage in
                let folder = try EditorFolder(stage)
                let a = try folder.edit("a", "f.txt")
                try a.waitForScreen(containing: "line 1 of the file")
                try a.press("M-z")
                try a.waitForScreen(containing: "Alt-z does nothing here")
                try a.press("M-x", "M-1")
                try a.type("!")
                let screen = try a.waitForScreen("a's first line to start with !") { $0.count > 1 && $0[1].hasPrefix("!") }
                #expect(screen[1] == "!line 1 of the file", "an Alt-key typed its character:\n\(a.screenDump())")

                let dumb = try stage.tmux.start(
                    "dumb", namespace: stage.lab.namespace(host: 1),
                    command: [stage.baton, "edit", "f.txt"],
                    environment: ["XDG_STATE_HOME": folder.path("state"), "TERM": "dumb"], workingDirectory: folder.root)
                try dumb.expectExit(1)
                // Joined as the pane wrapped it: a line may break inside a word.
                let said = try dumb.capture().joined()
                #expect(said.contains("\"dumb\"") && said.contains("TERM"), "\(dumb.screenDump())")
                #expect(folder.file("f.txt") == EditorFolder.original)
            }
        }

        @Test("proj/src/main.c continued where there is no proj says where it saves; continued back, it saves to proj/src/main.c without a question")
        func relativePathTravels() throws {
            try Stage.run(hosts: 2) { stage in
                let home = stage.tmux.directory.appendingPathComponent("relative").path
                let first = home + "/first"
                let second = home + "/second"
                try FileManager.default.createDirectory(atPath: first + "/proj/src", withIntermediateDirectories: true)
                try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
                try Data("int main;\n".utf8).write(to: URL(fileURLWithPath: first + "/proj/src/main.c"))

                let a = try stage.baton("a", on: 1, ["edit", "proj/src/main.c", "--name", "e2e-a"], workingDirectory: first)
                try a.waitForScreen(containing: "int main;")
                try a.type("A")
                try stage.listener.waitForEvent("e2e-a's text") { $0.peerName == "e2e-a" && $0.string("text") == "Aint main;\n" }

                let b = try stage.baton("b", on: 2, [
                    "--continue-activity", "dev.baton.editing", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
                ], workingDirectory: second)
                try b.waitForScreen(containing: "Ctrl-S saves to main.c")
                try b.type("B")
                try stage.listener.waitForEvent("e2e-b's text") { $0.peerName == "e2e-b" && $0.string("text") == "ABint main;\n" }
                try a.press("C-q", "n")
                _ = try a.waitForExit()

                let c = try stage.baton("c", on: 1, [
                    "--continue-activity", "dev.baton.editing", "--from", "e2e-b", "--wait", "5", "--name", "e2e-c",
                ], workingDirectory: first)
                try c.waitForScreen(containing: "Ctrl-S saves to proj/src/main.c")
                try c.press("C-s")
                let saved = try c.waitForScreen("c saved (no [+])") { $0.first.map { !$0.contains("[+]") } ?? false }
                #expect(!saved.joined().contains("exists and differs"), "\(c.screenDump())")
                let text = FileManager.default.contents(atPath: first + "/proj/src/main.c").map { String(decoding: $0, as: UTF8.self) }
                #expect(text == "ABint main;\n")
                #expect(!FileManager.default.fileExists(atPath: first + "/main.c"), "saved beside proj, not in it")
            }
        }

        /// Types into `baton edit f.txt`, optionally waits for the recovery copy, sends `signal`,
        /// then opens f.txt again: the question is asked, `y` brings the typed text back.
        private func recovers(waitForCopy: Bool, signal: Int32) throws {
            try Stage.run(hosts: 2) { stage in
                let folder = try EditorFolder(stage)
                let a = try folder.edit("a", "f.txt")
                try a.waitForScreen(containing: "line 1 of the file")
                try a.type("typed ")
                try a.waitForScreen("the typed text on a's screen") { $0.count > 1 && $0[1] == "typed line 1 of the file" }
                if waitForCopy {
                    let copy = try Wait.until("a recovery copy holding the typed text", timeout: 5) {
                        folder.copies().compactMap { folder.file("state/baton/recovery/" + $0) }
                            .first { $0.contains("typed line 1 of the file") }
                    }
                    #expect(!copy.isEmpty)
                } else if !folder.copies().isEmpty {
                    // Not a failure, but then this run does not show the copy written on the signal.
                    print("note: the timer wrote the recovery copy before SIGHUP was sent")
                }
                try a.kill(signal)
                let status = try a.waitForExit()
                if signal == SIGKILL { #expect(status == 137, "a's exit status \(status) after kill -9") }
                #expect(folder.copies().count == 1, "recovery folder after the signal: \(folder.copies())")
                #expect(folder.file("f.txt") == EditorFolder.original, "f.txt was written")

                let b = try folder.edit("b", "f.txt")
                try b.waitForScreen("the recovery question") { lines in
                    lines.contains { $0.contains("Recover unsaved changes from") && $0.contains("(6 bytes more than the file)? [y/N]") }
                }
                try b.type("y")
                try b.press("Enter")
                let screen = try b.waitForScreen("the recovered text") { $0.count > 2 && $0[1] == "typed line 1 of the file" }
                #expect(screen[2] == "line 2 of the file", "\(b.screenDump())")
                #expect(screen[0].contains("[+]"), "the recovered buffer is not shown unsaved:\n\(b.screenDump())")
                #expect(folder.file("f.txt") == EditorFolder.original, "recovering wrote f.txt")
            }
        }
    }
}

/// A working folder and a recovery folder shared by the editors of one test, with `f.txt`.
private struct EditorFolder {
    static let original = "line 1 of the file\nline 2 of the file\n"
    let stage: Stage
    let root: String

    init(_ stage: Stage) throws {
        self.stage = stage
        root = stage.tmux.directory.appendingPathComponent("editor").path
        try FileManager.default.createDirectory(atPath: path("state"), withIntermediateDirectories: true)
        try Data(Self.original.utf8).write(to: URL(fileURLWithPath: path("f.txt")))
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    /// `baton edit FILE` on h1 in the folder, with the folder's `XDG_STATE_HOME`.
    func edit(_ name: String, _ file: String) throws -> TmuxSession {
        try stage.tmux.start(
            name, namespace: stage.lab.namespace(host: 1),
            command: [stage.baton, "edit", file, "--name", "e2e-\(name)"],
            environment: ["XDG_STATE_HOME": path("state")], workingDirectory: root)
    }

    /// The names of the recovery copies there are.
    func copies() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path("state/baton/recovery"))) ?? [])
            .filter { $0.hasSuffix(".recovery") }.sorted()
    }

    /// A file's text, or nil.
    func file(_ relative: String) -> String? {
        FileManager.default.contents(atPath: path(relative)).map { String(decoding: $0, as: UTF8.self) }
    }
}
