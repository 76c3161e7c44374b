import ArgumentParser
import FoundationEssentials
import Glibc
import Handoff
import BatonMembership
import HandoffCLI
import HandoffWire
import BatonFiles

/// `baton key`: show, import or renew the group key.
struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Show the group key, which pairing gives to every machine of the group.",
        discussion: """
            Baton encrypts every datagram with a key derived from this group key, and ignores \
            datagrams sealed with any other. The key alone lets no machine in: a machine hears \
            only the devices it is paired with or introduced to, and `baton pair` gives it the key \
            too. The key lives in ~/.config/baton/group.key (or \
            $XDG_CONFIG_HOME/baton/group.key, mode 0600, in a folder kept at 0700), made on first use.

              baton key                    print this machine's key
              baton key --import -         use another machine's key (a machine paired already)
              baton key --new              make a fresh key and send it to every listed machine

            --new seals the new key for each machine `baton devices` lists (not removed) and \
            sends it to them, as `baton devices remove` does without removing anyone; a machine \
            that is off now gets it from the first Baton it hears once it is back. --import takes \
            a key you chose, for this machine only: the others keep theirs. Both keep the key \
            they replace as group.key.old (mode 0600).

            `baton key` prints the key alone on standard output (its hints go to standard \
            error), so one pipe copies it from this machine to another that is paired already:

              baton key | ssh OTHER baton key --import -

            Copy the key over a channel you trust: anyone who has it can read and send activities. \
            `--import KEY` also works, but leaves the key in your shell history. A key file that \
            others may read, or that belongs to another user, is refused with the command that fixes it.
            """)

    @Option(name: .customLong("import"), help: ArgumentHelp(
        "Use another machine's key, on this machine only (the others keep theirs; this machine must still be paired or introduced to be heard): '-' reads it from standard input (paste it, or pipe it in); a key given here (44 characters of base64) stays in your shell history.",
        valueName: "-|key"))
    var importKey: String?

    @Flag(help: "Replace the key with a fresh random one and send it, sealed, to every listed machine; the old one is kept as group.key.old.")
    var new = false

    @OptionGroup var network: NetworkOptions

    var keyFile: String? { network.keyFile }

    func validate() throws {
        if importKey != nil, new { throw ValidationError("Use either --import or --new, not both.") }
    }

    func run() async throws {
        let path = keyFile ?? GroupKey.defaultPath()
        if let importKey {
            let key: GroupKey
            if importKey == "-" {
                if isatty(STDIN_FILENO) == 1 {
                    Self.hint("Paste the group key (44 characters of base64) and press Enter:")
                }
                key = try KeyInput.read()
            } else {
                key = try GroupKey(base64: importKey, source: "--import")
            }
            let kept = try key.replaceKeepingOld(at: path)
            // Only the paired and introduced devices are heard: say how many this machine lists.
            let listedOthers = (try? DeviceList.standard().entries().count) ?? 0
            Console.line(KeyAdvice.imported(path: path, listedOthers: listedOthers))
            if let kept { Self.hint(Self.keptOld(kept, path: path)) }
            return
        }
        if new {
            if let keyFile, !FileManager.default.fileExists(atPath: keyFile) {
                // A key file that does not exist yet: nothing to replace, nobody to tell.
                let key = GroupKey.random()
                try key.write(to: keyFile, replace: false)
                Console.line(key.base64)
                Self.hint("A new key is in \(keyFile).")
                return
            }
            try await Self.change(removing: nil, network: network)
            return
        }
        if keyFile == nil, let env = ProcessInfo.processInfo.environment["BATON_KEY"], !env.isEmpty {
            let key = try GroupKey(base64: env, source: "BATON_KEY")
            Console.line(key.base64)
            Self.hint("(from BATON_KEY, which takes the place of \(path))")
            return
        }
        let (key, source) = try GroupKey.load(keyFile: keyFile)
        Console.line(key.base64)
        let origin: String
        switch source {
        case .created(let path): origin = "A new key, just made in \(path)."
        case .file(let path): origin = "The key in \(path)."
        case .environment: origin = "The key in BATON_KEY."
        case .given: origin = "The key given."
        }
        Self.hint("\(origin)\nTo let another machine in, \(KeyInput.howToCopy)")
    }

    /// Where the replaced key went, and how to put it back.
    static func keptOld(_ kept: String, path: String) -> String {
        let quoted = { (path: String) in "'" + path.replacing("'", with: "'\\''") + "'" }
        return "The previous key is kept in \(kept); to go back to it: mv \(quoted(kept)) \(quoted(path))"
    }

    /// A line for the person, on standard error: standard output is the key alone, to pipe.
    /// `Console` writes what standard output holds first, also where both go to one file.
    static func hint(_ text: String) {
        Console.note(text)
    }
}
