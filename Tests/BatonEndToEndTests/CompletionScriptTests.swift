import Foundation
import Testing

/// The completion scripts `baton --generate-completion-script` prints, sourced by the shell:
/// a line that runs the default subcommand without naming it (`baton --continue-activity <Tab>`)
/// completes as that subcommand does, and the rest as the parser's script completes it.
@Suite("Shell completion of baton's command line", .serialized, .ownThread, .timeLimit(.minutes(2)))
struct CompletionScriptTests {
    /// Asks bash to complete `words` after the program's path, the cursor at the end, with the
    /// script sourced and the function it registered for `baton` called as bash calls it.
    static let bashDriver = #"""
        source "$1"
        line="$2"
        read -ra COMP_WORDS <<< "$line"
        [[ $line == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE="$line"
        COMP_POINT=${#line}
        function=$(complete -p baton)
        function=${function##*-F }
        function=${function%% *}
        "$function" baton "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\n' "${COMPREPLY[@]}"
        """#

    static func script(_ shell: String, baton: String) async throws -> String {
        let result = try await CommandLineFileTests.run([baton, "--generate-completion-script", shell], environment: [:])
        let path = NSTemporaryDirectory() + "baton-completion-\(UUID().uuidString).\(shell)"
        try result.output.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func bashOffers(_ words: String, script: String, baton: String) async throws -> [String] {
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        let result = try await CommandLineFileTests.run(
            ["bash", "-c", bashDriver, "driver", script, baton + " " + words], environment: environment)
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test("bash: --continue-activity <Tab> at the top level offers activity types, as under counter; the rest as before")
    func bash() async throws {
        let baton = try Binaries.baton()
        let script = try await Self.script("bash", baton: baton)
        defer { try? FileManager.default.removeItem(atPath: script) }

        let types = try await Self.bashOffers("--continue-activity ", script: script, baton: baton)
        #expect(types.contains("dev.baton.editing") && types.contains("editing"), "\(types)")
        #expect(!types.contains("monitor"), "subcommands offered for an activity type: \(types)")
        #expect(try await Self.bashOffers("counter --continue-activity ", script: script, baton: baton) == types)
        #expect(try await Self.bashOffers("--continue-activity ed", script: script, baton: baton) == ["editing"])
        #expect(try await Self.bashOffers("--continue-activity --fr", script: script, baton: baton) == ["--from"])
        #expect(try await Self.bashOffers("--con", script: script, baton: baton) == ["--continue-activity"])
        // Without an option first, the subcommands, as the parser's script offers them.
        let top = try await Self.bashOffers("", script: script, baton: baton)
        #expect(top.contains("edit") && top.contains("monitor") && top.contains("--help"), "\(top)")
        #expect(try await Self.bashOffers("mon", script: script, baton: baton) == ["monitor"])
        #expect(try await Self.bashOffers("follow ", script: script, baton: baton) == types)
    }

    @Test("zsh and fish: the scripts with the added lines are read without an error")
    func otherShells() async throws {
        let baton = try Binaries.baton()
        var checked = 0
        for (shell, check) in [("zsh", ["-n"]), ("fish", ["--no-execute"])] {
            guard let program = Command.which(shell) else {
                print("skipping the \(shell) script: \(shell) is not installed (apt-get install \(shell))")
                continue
            }
            let script = try await Self.script(shell, baton: baton)
            defer { try? FileManager.default.removeItem(atPath: script) }
            let text = try String(contentsOfFile: script, encoding: .utf8)
            #expect(text.contains("_baton_default_subcommand") || text.contains("__baton_tokens_as_typed"))
            let result = try await CommandLineFileTests.run([program] + check + [script], environment: [:], check: false)
            #expect(result.status == 0, "\(shell) -n: \(result.errorOutput)")
            checked += 1
        }
        if checked == 0 { try skip("neither zsh nor fish is installed") }
    }
}
