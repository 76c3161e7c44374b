import ArgumentParser

/// Completion of a line that runs the default subcommand without naming it
/// (`baton --continue-activity <Tab>`, which runs `baton counter --continue-activity`).
///
/// The scripts swift-argument-parser generates complete a default subcommand's options and
/// arguments only under its name, and offer the subcommands' names after `baton --flag`. Baton's
/// scripts end with a few lines more: when the word after the command starts with `-`, the line
/// is completed as if the default subcommand's name stood before it. The generated script is
/// left as it is; the lines only change the words its functions read.
public enum DefaultCommandCompletion {
    /// The shell asked for with `--generate-completion-script SHELL` (or `=SHELL`, or alone for
    /// the shell `$SHELL` names, as the parser takes it) as the only arguments; nil for any other
    /// command line, which the parser then takes as usual.
    public static func requestedShell(
        in arguments: [String], autodetected: () -> CompletionShell? = CompletionShell.autodetected
    ) -> CompletionShell? {
        let flag = "--generate-completion-script"
        switch arguments.count {
        case 2 where arguments[1] == flag:
            return autodetected()
        case 2 where arguments[1].hasPrefix(flag + "="):
            return CompletionShell(rawValue: String(arguments[1].dropFirst(flag.count + 1)))
        case 3 where arguments[1] == flag:
            return CompletionShell(rawValue: arguments[2])
        default:
            return nil
        }
    }

    /// The script for `shell`: `generated`, the parser's, with the lines added. `command` is the
    /// program's name, `subcommand` its default subcommand's.
    public static func script(
        for shell: CompletionShell, generated: String, command: String, subcommand: String
    ) -> String {
        switch shell {
        case .bash:
            return generated + bash(command: command, subcommand: subcommand)
        case .zsh:
            // The generated script ends by completing (when zsh loaded it as the function
            // `_baton`, at the first Tab) or by registering `_baton`: the new lines do both
            // with the function around it instead.
            let trailer = "if [[ \"${funcstack[1]}\" = _\(command) ]]; then"
            let lines = generated.split(separator: "\n", omittingEmptySubsequences: false)
            let head = lines.lastIndex { $0 == trailer }.map { lines[..<$0].joined(separator: "\n") + "\n" }
            return (head ?? generated) + zsh(command: command, subcommand: subcommand)
        case .fish:
            return generated + fish(command: command, subcommand: subcommand)
        default:
            return generated
        }
    }

    /// bash: a function around `_baton` that puts the subcommand into `COMP_WORDS`, `COMP_CWORD`,
    /// `COMP_LINE` and `COMP_POINT` (local copies, which the generated functions read).
    static func bash(command: String, subcommand: String) -> String {
        """

        # \(command) -OPTION … runs \(command) \(subcommand) -OPTION …: complete it so.
        _\(command)_default_subcommand() {
            if [[ ${COMP_CWORD} -ge 1 && ${COMP_WORDS[1]} == -* ]]; then
                local -a words=("${COMP_WORDS[@]}")
                local line="${COMP_LINE}"
                local -a COMP_WORDS=("${words[0]}" \(subcommand) "${words[@]:1}")
                local -i COMP_CWORD=$((COMP_CWORD + 1))
                local COMP_LINE="${line/"${words[0]}"/"${words[0]} \(subcommand)"}"
                local -i COMP_POINT=$((COMP_POINT + \(subcommand.utf8.count + 1)))
                _\(command) "${1}" "${2}" "${3}"
                return
            fi
            _\(command) "${@}"
        }
        complete -o filenames -F _\(command)_default_subcommand \(command)

        """
    }

    /// zsh: a function around `_baton` that puts the subcommand into `words` and moves `CURRENT`.
    static func zsh(command: String, subcommand: String) -> String {
        """

        # \(command) -OPTION … runs \(command) \(subcommand) -OPTION …: complete it so.
        _\(command)_default_subcommand() {
            if (( CURRENT >= 2 )) && [[ ${words[2]} == -* ]]; then
                words=("${words[1]}" \(subcommand) "${(@)words[2,-1]}")
                (( CURRENT++ ))
            fi
            _\(command) "${@}"
        }
        compdef _\(command)_default_subcommand \(command)
        if [[ "${funcstack[1]}" = _\(command) ]]; then
            _\(command)_default_subcommand "${@}"
        fi

        """
    }

    /// fish: `__baton_tokens`, which every generated condition and custom completion reads the
    /// command line through, gives the subcommand after the command's name when the word after
    /// it (the one being completed too) starts with `-`.
    static func fish(command: String, subcommand: String) -> String {
        """

        # \(command) -OPTION … runs \(command) \(subcommand) -OPTION …: complete it so.
        functions -c __\(command)_tokens __\(command)_tokens_as_typed
        function __\(command)_tokens
            set -l tokens (__\(command)_tokens_as_typed $argv)
            set -l line (__\(command)_tokens_as_typed -p)
            if not contains -- -t $argv; and string match -q -- '-*' "$line[2]"
                set tokens $tokens[1] \(subcommand) $tokens[2..]
            end
            test (count $tokens) -gt 0; and printf '%s\\n' $tokens
        end

        """
    }
}
