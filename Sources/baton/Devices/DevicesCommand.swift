import ArgumentParser
import BatonFiles
import FoundationEssentials
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

              baton devices                 NAME, FINGERPRINT, HOW, SINCE
              baton devices --json          one JSON array, times in ISO 8601 (UTC)
              baton devices remove NAME     remove a machine (a lost laptop, an old VM) and
                                            change the group key for the others

            To check an entry, run `baton id` on that machine: its fingerprint must be the one here. \
            A removed machine is listed as removed; it is not heard again, and needs a new identity \
            and a new pairing to come back. No time last heard is kept yet, so the list has no such column.
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
        Console.line(text)
    }
}
