import ArgumentParser
import BatonFiles
import Foundation
import HandoffCLI
import HandoffWire

/// `baton devices`: the machines this one paired with.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the machines this one paired with: name, fingerprint, when paired.",
        discussion: """
            `baton pair` adds the other machine here, on both sides, with the fingerprint it proved \
            during the pairing; pairing the same machine again updates its entry. The list is \
            ~/.config/baton/devices.json (or under $XDG_CONFIG_HOME, mode 0600).

              baton devices            NAME, FINGERPRINT, PAIRED, LAST HEARD
              baton devices --json     one JSON array, times in ISO 8601 (UTC)

            To check an entry, run `baton id` on that machine: its fingerprint must be the one here. \
            LAST HEARD stays empty for now: this version of Baton does not yet tell devices apart in \
            what it hears.
            """)

    @Flag(help: "One JSON array of {name, fingerprint, deviceID, identity, via, paired, lastHeard}.")
    var json = false

    func run() throws {
        let entries: [DeviceEntry]
        do {
            entries = try DeviceList.standard().entries()
        } catch {
            throw CommandFailure(error.description)
        }
        let text = json ? DeviceText.listJSON(entries) : DeviceText.list(entries)
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
