import ArgumentParser
import BatonFiles
import FoundationEssentials
import HandoffCLI
import HandoffWire

/// `baton id`: this machine's name and fingerprint, to compare with what another machine lists.
struct IdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "id",
        abstract: "Show this machine's name and fingerprint, to compare with what paired machines list.",
        discussion: """
            Every machine has an identity of its own, made on first use and kept in \
            ~/.config/baton/identity.key (or $XDG_CONFIG_HOME/baton/identity.key, mode 0600). Its \
            fingerprint, 32 hex digits in 8 groups, names this machine:

              baton id                 this machine's name, fingerprint and identity file
              baton id --json          the same as one JSON object

            When two machines pair (`baton pair`), each shows the other's fingerprint beside the \
            code and then lists it in `baton devices`. To check that a machine listed there is really \
            the one you think, run `baton id` on that machine and compare the fingerprints. \
            The identity file is secret: never copy it to another machine (each needs its own).
            """)

    @Flag(help: "One JSON object: name, fingerprint, deviceID, identity (public, base64), file, created.")
    var json = false

    @Option(help: ArgumentHelp("The name to show (default: user@host, as `baton pair` uses).", valueName: "name"))
    var name: String?

    func run() throws {
        let loaded: (identity: DeviceIdentity, path: String, created: Bool)
        do {
            loaded = try DeviceIdentity.load()
        } catch {
            throw CommandFailure(error.description)
        }
        let myName = PeerInfo.local(app: "baton", appVersion: Baton.version, name: name).name
        let text =
            json
            ? DeviceText.identityJSON(name: myName, identity: loaded.identity.publicIdentity, path: loaded.path, created: loaded.created)
            : DeviceText.identity(name: myName, identity: loaded.identity.publicIdentity, path: loaded.path, created: loaded.created)
        Console.line(text)
    }
}
