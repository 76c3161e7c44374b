import ArgumentParser
import BatonCommands
import FoundationEssentials
import Handoff
import BatonDoctor
import HandoffCLI
import HandoffMulticast

/// `baton doctor`: what the README's "They don't see each other" list checks by hand.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Find out why machines do not see each other: check this one's network, firewall and key.",
        discussion: """
            Checks, one line each (✓ fine, ! worth knowing, ✗ a problem), then the \
            first fix to try:

              identity and devices
                                identity.key and devices.json can be read;
                                this machine is listed (not removed), and
                                how many others it lists
              interfaces        which interfaces can do multicast, and which
                                one Baton joins (--interface or the kernel's)
              other interfaces  a VPN, Docker or VM interface taking the group
              firewall          nftables / iptables rules that drop UDP 47788,
                                pairing's UDP and TCP 47790, or the state
                                stream's TCP port (--stream-port; any free
                                one by default); read only as root, and
                                outranked by the self-test and listening
              group key         the key file is there, yours, mode 0600
                                (or BATON_KEY holds a usable key)
              multicast self-test
                                a probe to 239.255.77.88:47788 must come back
                                through the kernel within 1 s: it does not when
                                a firewall drops the port or there is no
                                multicast route
              listening         for --listen seconds: the peers heard, and
                                datagrams under another group key (those
                                under the previous key, during a change,
                                are fine)
              unicast peers     which --peer hosts answered by unicast (a name
                                that does not resolve is a problem); when
                                multicast fails but one answers, the fix is
                                --peer
              relay             with --relay (BATON_RELAY, the relay file):
                                connects as Baton would and sends a datagram
                                through the broker; a broker that refused the
                                user name and password, or asked for or
                                refused a client certificate, is told apart
                                from one that cannot be reached

            Exits 0 when nothing is wrong (warnings included), 1 otherwise. Run it \
            on both machines with the same --interface, --group, --port and \
            --key-file as baton. The probe is 58 bytes that Baton peers drop \
            unread (wrong magic); doctor also sends one QUERY, which peers that \
            offer something answer, and the statements this machine keeps \
            (DEVICES), so that a key change it missed is heard while it listens. --json prints one object for scripts: \
            "checks" (each with name, status ok/warning/problem/skipped, detail, \
            fix), "exitStatus" and "firstFix".
            """)

    @OptionGroup var network: NetworkOptions

    @Flag(help: "One JSON object with every finding, for scripts.")
    var json = false

    @Option(
        help: ArgumentHelp("How long to listen for peers.", valueName: "seconds").defaulting(to: Seconds(3)),
        transform: { try Seconds.listen($0) })
    var listen = Seconds(3)

    @MainActor
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // A peer name that does not resolve is one ✗ line of the unicast check, not a warning apart.
        let configuration = try network.multicastConfiguration(environment: environment, warn: { _ in })
        let interfaceSource = network.interface != nil
            ? "--interface"
            : (configuration.interface != nil ? MulticastConfiguration.interfaceVariable : nil)
        let context = DoctorContext(
            configuration: configuration, interfaceSource: interfaceSource, keyFile: network.keyFile,
            environment: environment, listenSeconds: listen.value,
            streamPort: try network.stateStreamPort(environment: environment))
        context.relay = try network.relayConfiguration(environment: environment)
        let report = await context.run(DoctorCheck.standard + (context.relay == nil ? [] : [DoctorCheck.relay]))
        let output = json ? report.json() : report.text(unicode: Self.unicodeTerminal(environment))
        Console.line(output)
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }

    /// Whether the locale says UTF-8 (LC_ALL, else LC_CTYPE, else LANG), so ✓ and ✗ show.
    static func unicodeTerminal(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let lower = locale.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8")
    }
}
