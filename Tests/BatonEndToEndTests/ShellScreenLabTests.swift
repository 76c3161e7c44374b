import Foundation
import Testing

/// Real programs in `baton shell`, read back through tmux and compared with the same program run
/// directly in a pane of the same size, screen by screen: text, colours and attributes, and the
/// cursor. Both run on one lab host, with the same environment.
@Suite("baton shell shows programs as they are (netlab + tmux)", .serialized, .ownThread, .timeLimit(.minutes(3)))
struct ShellScreenLabTests {
    /// A prompt with colours: bold green user, default colours after.
    static let environment = ["PS1": "\\[\\e[1;32m\\]e2e@box\\[\\e[0m\\]:\\[\\e[34m\\]\\W\\[\\e[0m\\]\\$ ", "HISTFILE": "/dev/null"]

    /// Waits until `shell` shows what `direct` shows, colours and cursor included.
    static func same(_ direct: TmuxSession, _ shell: TmuxSession, _ what: String) throws {
        var last = ""
        do {
            try shell.waitForScreen("baton shell to show \(what) as it runs directly", timeout: 10) { _ in
                guard let a = try? direct.captureStyled(), let b = try? shell.captureStyled(),
                      let ca = try? direct.cursor(), let cb = try? shell.cursor() else { return false }
                last = "direct:\n" + a.joined(separator: "\n") + "\n(cursor \(ca))\nbaton shell:\n" + b.joined(separator: "\n") + "\n(cursor \(cb))"
                return a == b && ca == cb
            }
        } catch {
            Issue.record("\(what) differs:\n\(last)")
            throw error
        }
    }

    /// Types `keys` (tmux key names or literal text) into both.
    static func both(_ direct: TmuxSession, _ shell: TmuxSession, type text: String? = nil, press keys: [String] = []) throws {
        for session in [direct, shell] {
            if let text { try session.type(text) }
            for key in keys { try session.press(key) }
        }
    }

    @Test("A bash prompt with colours, wide graphemes, vim (insert, the alternate screen, leaving it), less, and a resize")
    func screenByScreen() throws {
        try Stage.run(hosts: 2) { stage in
            let bash = ["/bin/bash", "--norc", "--noprofile"]
            let direct = try stage.tmux.start(
                "direct", namespace: stage.lab.namespace(host: 1), command: bash, environment: Self.environment)
            let shell = try stage.tmux.start(
                "shell", namespace: stage.lab.namespace(host: 1), command: [stage.baton, "shell", "--name", "e2e-a", "--"] + bash,
                environment: Self.environment)
            let file = stage.tmux.directory.appendingPathComponent("notes.txt").path
            try (1...80).map { "line \($0) of the notes" }.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            try shell.waitForScreen(containing: "e2e@box")
            try Self.both(direct, shell, type: "cd \(stage.tmux.directory.path); clear", press: ["Enter"])
            try direct.waitForScreen("a cleared screen") { $0.count >= 1 && $0[0].hasPrefix("e2e@box") && $0.dropFirst().allSatisfy(\.isEmpty) }
            try Self.same(direct, shell, "the prompt")

            try Self.both(direct, shell, type: "printf '\\e[31mred\\e[0m \\e[38;5;208morange\\e[0m \\e[7mrev\\e[0m 中文 नमस्ते 👍🏽\\n'", press: ["Enter"])
            try direct.waitForScreen("the colours printed") { $0.contains { $0.hasPrefix("red orange") } }
            try Self.same(direct, shell, "colours and wide graphemes")

            try Self.both(direct, shell, type: "vim -u NONE -N -n notes.txt", press: ["Enter"])
            try direct.waitForScreen(containing: "line 1 of the notes")
            try Self.same(direct, shell, "vim's first screen")
            #expect(try shell.isOnAlternateScreen())
            try Self.both(direct, shell, press: ["i"])
            try Self.both(direct, shell, type: "hello ")
            try Self.both(direct, shell, press: ["Escape"])
            try direct.waitForScreen("vim back in normal mode") { !($0.last ?? "").contains("INSERT") }
            try Self.same(direct, shell, "vim after an insert")
            try Self.both(direct, shell, type: ":q!", press: ["Enter"])
            try direct.waitForScreen("the shell again") { _ in (try? direct.isOnAlternateScreen()) == false }
            try Self.same(direct, shell, "the shell after leaving vim")

            try Self.both(direct, shell, type: "less notes.txt", press: ["Enter"])
            try direct.waitForScreen(containing: "line 20 of the notes")
            try Self.same(direct, shell, "less")
            try Self.both(direct, shell, press: ["Space"])
            try direct.waitForScreen(containing: "line 40 of the notes")
            try Self.same(direct, shell, "less, a page on")
            try Self.both(direct, shell, press: ["q"])
            try direct.waitForScreen("the shell after less") { _ in (try? direct.isOnAlternateScreen()) == false }
            try Self.same(direct, shell, "the shell after less")

            try direct.resize(width: 100, height: 30)
            try shell.resize(width: 100, height: 30)
            try Self.both(direct, shell, type: "clear; stty size", press: ["Enter"])
            try direct.waitForScreen(containing: "30 100")
            try Self.same(direct, shell, "the shell after a resize")

            try Self.both(direct, shell, type: "exit 5", press: ["Enter"])
            try shell.expectExit(5)
        }
    }
}
