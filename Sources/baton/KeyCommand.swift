import ArgumentParser
import Foundation
import Handoff

/// `baton key`: show, import or renew the group key.
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Show the group key; machines that should see each other must share it.",
        discussion: """
            Baton encrypts every datagram with a key derived from this group key, and ignores \
            datagrams sealed with any other. The key lives in ~/.config/baton/group.key (or \
            $XDG_CONFIG_HOME/baton/group.key, mode 0600), made on first use.

              baton key                    print this machine's key
              baton key --import KEY       use another machine's key here
              baton key --new              make a fresh key (others must import it again)

            Copy the key over a channel you trust: anyone who has it can read and send activities.
            """)

    @Option(name: .customLong("import"), help: ArgumentHelp("Use this key (44 characters of base64).", valueName: "key"))
    var importKey: String?

    @Flag(help: "Replace the key with a fresh random one.")
    var new = false

    @Option(name: .customLong("key-file"), help: ArgumentHelp("The key file to use instead of the default.", valueName: "path"))
    var keyFile: String?

    func validate() throws {
        if importKey != nil, new { throw ValidationError("Use either --import or --new, not both.") }
    }

    func run() throws {
        let path = keyFile ?? GroupKey.defaultPath()
        if let importKey {
            let key = try GroupKey(base64: importKey, source: "--import")
            try key.write(to: path, replace: true)
            print("Imported. \(path) now holds the shared key; baton here will see peers that use it.")
            return
        }
        if new {
            let key = GroupKey.random()
            try key.write(to: path, replace: true)
            print(key.base64)
            print("A new key is in \(path). On each machine that should see this one, run:\n  baton key --import \(key.base64)")
            return
        }
        if keyFile == nil, let env = ProcessInfo.processInfo.environment["BATON_KEY"], !env.isEmpty {
            let key = try GroupKey(base64: env, source: "BATON_KEY")
            print(key.base64)
            print("(from BATON_KEY, which takes the place of \(path))")
            return
        }
        let (key, source) = try GroupKey.load(keyFile: keyFile)
        print(key.base64)
        print("(\(source)) To let another machine see this one, run there:\n  baton key --import \(key.base64)")
    }
}
