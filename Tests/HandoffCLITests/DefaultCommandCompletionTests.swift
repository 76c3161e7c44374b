import ArgumentParser
import HandoffCLI
import Testing

@Suite("Completion of the default subcommand without its name")
struct DefaultCommandCompletionTests {
    @Test("--generate-completion-script SHELL, =SHELL or alone ($SHELL's) is taken; anything else is left to the parser")
    func request() {
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton", "--generate-completion-script", "bash"]) == .bash)
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton", "--generate-completion-script=zsh"]) == .zsh)
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton", "--generate-completion-script", "fish"]) == .fish)
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton", "--generate-completion-script", "tcsh"]) == nil)
        // Alone, the shell `$SHELL` names, as the parser takes it.
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton", "--generate-completion-script"], autodetected: { .zsh }) == .zsh)
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton", "--generate-completion-script"], autodetected: { nil }) == nil)
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton", "edit", "--generate-completion-script", "bash"]) == nil)
        #expect(DefaultCommandCompletion.requestedShell(in: ["baton"]) == nil)
    }

    @Test("bash: the function around _baton is registered last")
    func bash() {
        let script = DefaultCommandCompletion.script(
            for: .bash, generated: "_baton() { :; }\ncomplete -o filenames -F _baton baton\n", command: "baton", subcommand: "counter")
        #expect(script.hasPrefix("_baton() { :; }\ncomplete -o filenames -F _baton baton\n"))
        #expect(script.hasSuffix("complete -o filenames -F _baton_default_subcommand baton\n"))
        #expect(script.contains(#"local -a COMP_WORDS=("${words[0]}" counter "${words[@]:1}")"#))
        #expect(script.contains("COMP_POINT=$((COMP_POINT + 8))"))
    }

    @Test("zsh: the generated ending, which completes or registers _baton, is replaced; without it the lines are added")
    func zsh() {
        let ending = """
            if [[ "${funcstack[1]}" = _baton ]]; then
                _baton "${@}"
            else
                compdef _baton baton
            fi

            """
        let script = DefaultCommandCompletion.script(
            for: .zsh, generated: "#compdef baton\n_baton() { :; }\n\n" + ending, command: "baton", subcommand: "counter")
        #expect(script.hasPrefix("#compdef baton\n_baton() { :; }\n\n"))
        #expect(!script.contains("compdef _baton baton"))
        #expect(!script.contains(#"    _baton "${@}""# + "\nelse"))
        #expect(script.contains("compdef _baton_default_subcommand baton"))
        #expect(script.contains(#"_baton_default_subcommand "${@}""#))
        let plain = DefaultCommandCompletion.script(for: .zsh, generated: "_baton() { :; }\n", command: "baton", subcommand: "counter")
        #expect(plain.hasPrefix("_baton() { :; }\n\n# baton -OPTION"))
    }

    @Test("fish: __baton_tokens is kept under another name and given the subcommand")
    func fish() {
        let script = DefaultCommandCompletion.script(
            for: .fish, generated: "function __baton_tokens\nend\n", command: "baton", subcommand: "counter")
        #expect(script.hasPrefix("function __baton_tokens\nend\n"))
        #expect(script.contains("functions -c __baton_tokens __baton_tokens_as_typed"))
        #expect(script.contains("set tokens $tokens[1] counter $tokens[2..]"))
    }
}
