import ArgumentParser
import Foundation
import HandoffCLI

/// `baton`: Handoff for the terminal.
@main
struct Baton: AsyncParsableCommand {
    static let version = "1.0.0"

    static let configuration = CommandConfiguration(
        commandName: "baton",
        abstract: "Handoff for the terminal: start a counter or an edit here, continue it in another terminal.",
        discussion: """
            Work in one terminal, then carry on in another — on this machine or another on the LAN — \
            with the same count, the same text, the cursor in the same place. No account, no server: \
            peers find each other by UDP multicast, encrypted with a group key they share.

              baton                           a counter (+ / - / r, q quits)
              baton edit notes.txt            a small editor (Ctrl-S saves, Ctrl-Q quits)
              baton --continue-activity       continue what another terminal is doing
              baton --continue-activity dev.baton.editing    … only an editing session
              baton monitor                   watch what peers offer, without a UI
              baton pair                      give a new machine this machine's group key
              baton pair --join               take the key from a machine running baton pair
              baton id                        this machine's fingerprint, to compare with another's list
              baton devices                   the machines this one paired with
              baton key                       show this machine's group key (for scripts)
              baton doctor                    find out why machines do not see each other
              baton config                    each setting in use, and where it came from
              baton kv set KEY VALUE          keep a setting the same on every machine
              baton kv get KEY                … and read it (also kv list, kv rm, kv watch)

            Options go after the command: baton edit --peer HOST notes.txt.
            Inside the app, Ctrl-N (or n in the counter) lists what is nearby; Enter continues it.
            Environment: BATON_KEY, BATON_GROUP, BATON_PORT, BATON_TTL, BATON_INTERFACE, BATON_PEERS, BATON_RELAY, BATON_LOG.
            No multicast between two machines (Wi-Fi isolation, VPN)? Name the other on one side: --peer HOST.
            On other networks (another subnet, VLAN or site)? Meet at an MQTT broker: --relay mqtt://HOST.
            """,
        version: VersionText.text(version: version, protocols: VersionText.protocols(pairing: true), runtime: .current()),
        subcommands: [
            CounterCommand.self, EditCommand.self, MonitorCommand.self, PairCommand.self, IdCommand.self, DevicesCommand.self,
            KeyCommand.self, DoctorCommand.self,
            ConfigCommand.self, KvCommand.self,
        ],
        defaultSubcommand: CounterCommand.self)
}
