import ArgumentParser
import Foundation
import Handoff
import HandoffCLI
import HandoffWire
import BatonFiles

/// `baton key`: show, import or renew the group key.
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Show the group key; machines that should see each other must share it.",
        discussion: """
            Baton encrypts every datagram with a key derived from this group key, and ignores \
            datagrams sealed with any other. The key lives in ~/.config/baton/group.key (or \
            $XDG_CONFIG_HOME/baton/group.key, mode 0600, in a folder kept at 0700), made on first use.

              baton key                    print this machine's key
              baton key --import -         use another machine's key: paste it, or pipe it
              baton key --new              make a fresh key (others must import it again)

            --new and --import keep the key they replace as group.key.old (mode 0600).

            `baton key` prints the key alone on standard output (its hints go to standard \
            error), so one pipe copies it from this machine to another:

              baton key | ssh OTHER baton key --import -

            Copy the key over a channel you trust: anyone who has it can read and send activities. \
            `--import KEY` also works, but leaves the key in your shell history. A key file that \
            others may read, or that belongs to another user, is refused with the command that fixes it.
            """)

    @Option(name: .customLong("import"), help: ArgumentHelp(
        "Use another machine's key: '-' reads it from standard input (paste it, or pipe it in); a key given here (44 characters of base64) stays in your shell history.",
        valueName: "-|key"))
    var importKey: String?

    @Flag(help: "Replace the key with a fresh random one; the old one is kept as group.key.old.")
    var new = false

    @Option(name: .customLong("key-file"), help: ArgumentHelp("The key file to use instead of the default.", valueName: "path"))
    var keyFile: String?

    func validate() throws {
        if importKey != nil, new { throw ValidationError("Use either --import or --new, not both.") }
    }

    func run() throws {
        let path = keyFile ?? GroupKey.defaultPath()
        if let importKey {
            let key: GroupKey
            if importKey == "-" {
                if isatty(STDIN_FILENO) == 1 {
                    hint("Paste the group key (44 characters of base64) and press Enter:")
                }
                key = try KeyInput.read()
            } else {
                key = try GroupKey(base64: importKey, source: "--import")
            }
            let kept = try key.replaceKeepingOld(at: path)
            print("Imported. \(path) now holds the shared key; baton here will see peers that use it.")
            if let kept { hint(Self.keptOld(kept, path: path)) }
            return
        }
        if new {
            let key = GroupKey.random()
            let kept = try key.replaceKeepingOld(at: path)
            print(key.base64)
            hint("A new key is in \(path). On each machine that should see this one, \(KeyInput.howToCopy)")
            if let kept { hint(Self.keptOld(kept, path: path)) }
            return
        }
        if keyFile == nil, let env = ProcessInfo.processInfo.environment["BATON_KEY"], !env.isEmpty {
            let key = try GroupKey(base64: env, source: "BATON_KEY")
            print(key.base64)
            hint("(from BATON_KEY, which takes the place of \(path))")
            return
        }
        let (key, source) = try GroupKey.load(keyFile: keyFile)
        print(key.base64)
        let origin: String
        switch source {
        case .created(let path): origin = "A new key, just made in \(path)."
        case .file(let path): origin = "The key in \(path)."
        case .environment: origin = "The key in BATON_KEY."
        case .given: origin = "The key given."
        }
        hint("\(origin)\nTo let another machine see this one, \(KeyInput.howToCopy)")
    }

    /// Where the replaced key went, and how to put it back.
    static func keptOld(_ kept: String, path: String) -> String {
        let quoted = { (path: String) in "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return "The previous key is kept in \(kept); to go back to it: mv \(quoted(kept)) \(quoted(path))"
    }

    /// A line for the person, on standard error: standard output is the key alone, to pipe.
    private func hint(_ text: String) {
        fflush(nil)  // the key first, also where both streams go to one file
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
