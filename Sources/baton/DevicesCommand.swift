import ArgumentParser
import BatonFiles
import Foundation
import Handoff
import BatonMembership
import HandoffCLI
import HandoffWire

/// `baton devices`: the machines this one hears, and `baton devices remove`.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the machines this one hears: paired with, or introduced by one of them; remove one.",
        discussion: """
            `baton pair` adds the other machine here, on both sides, with the fingerprint it proved \
            during the pairing; pairing the same machine again updates its entry. A machine paired \
            with any member of the group is introduced to all the others: it is listed here as \
            "introduced by NAME", without pairing it here. The list is ~/.config/baton/devices.json \
            (or under $XDG_CONFIG_HOME, mode 0600).

              baton devices                 NAME, FINGERPRINT, HOW, SINCE, LAST HEARD
              baton devices --json          one JSON array, times in ISO 8601 (UTC)
              baton devices remove NAME     remove a machine (a lost laptop, an old VM) and
                                            change the group key for the others

            To check an entry, run `baton id` on that machine: its fingerprint must be the one here. \
            A removed machine is listed as removed; it is not heard again, and needs a new identity \
            and a new pairing to come back. LAST HEARD stays empty for now.
            """,
        subcommands: [Remove.self])

    @Flag(help: "One JSON array of {name, fingerprint, deviceID, identity, via, paired, introduced, introducedBy, removed, lastHeard}.")
    var json = false

    func run() throws {
        let myName = PeerInfo.local(app: "baton", appVersion: Baton.version).name  // not shown: the list is of the others
        let identity: DeviceIdentity
        let snapshot: DeviceList.Snapshot
        do {
            identity = try DeviceIdentity.load().identity
            snapshot = try DeviceList.standard().snapshot()
        } catch let error as DeviceIdentity.FileError {
            throw CommandFailure(error.description)
        } catch let error as DeviceList.Failure {
            throw CommandFailure(error.description)
        }
        let roster = MembershipStore.roster(identity: identity, name: myName, snapshot: snapshot)
        let rows = DeviceText.rows(snapshot, roster: roster)
        let text = json ? DeviceText.listJSON(rows) : DeviceText.list(rows)
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// `baton devices remove NAME|FINGERPRINT`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a machine from the group, and give the others a new group key it does not have.",
            discussion: """
                For a lost or retired machine. In one step (docs/PROTOCOL.md, section 17):

                  1. a signed statement that the machine is removed, for good;
                  2. a new random group key, sealed for each other listed machine;
                  3. both stored here (group.key gets the new key, group.key.old the old one);
                  4. both sent to the group under the old key, three times.

                Machines that hear it refuse the removed one at once and switch to the new key; a \
                machine that is off now gets it from the first Baton it hears once it is back. \
                Running Baton programs here pick the change up within a second and pass it on.

                  baton devices remove carol@vm
                  baton devices remove 3cbf621c        (the first digits of its fingerprint)

                The removed machine keeps what it already saw, and can still open what is sent \
                under the old key until the others switch. To come back it needs a new identity \
                (move its identity.key aside) and a new pairing. This machine cannot remove itself: \
                run the command on another one.
                """)

        @Argument(help: ArgumentHelp(
            "The machine's name as `baton devices` lists it, or its fingerprint (at least the first 4 digits).",
            valueName: "name|fingerprint"))
        var device: String

        @OptionGroup var network: NetworkOptions

        func run() async throws {
            try await KeyCommand.change(removing: device, network: network)
        }
    }
}
