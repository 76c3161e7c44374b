import ArgumentParser
import HandoffCLI

extension DevicesCommand {
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
            valueName: "name|fingerprint"),
            completion: .custom { _, _, prefix in DeviceCompletion.names(prefix: prefix) })
        var device: String

        @OptionGroup var network: NetworkOptions

        func run() async throws {
            try await KeyCommand.change(removing: device, network: network)
        }
    }
}
