import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffRelay
import HandoffWire

/// One check of `baton doctor`: a name and what it does with the shared context.
///
/// The checks run in order, each seeing what those before it found (`DoctorContext.findings`)
/// and the multicast run they share (`DoctorContext.multicast()`), so a later check can join
/// the list, e.g. one that tries a host by unicast when the self-test failed.
package struct DoctorCheck: Sendable {
    package var name: String
    package var run: @MainActor @Sendable (DoctorContext) async -> DoctorFinding

    package init(name: String, run: @escaping @MainActor @Sendable (DoctorContext) async -> DoctorFinding) {
        self.name = name
        self.run = run
    }

    /// Which interfaces can do multicast, and which one Baton would join.
    package static let interfaces = DoctorCheck(name: InterfaceCheck.interfacesName) { context in
        InterfaceCheck.interfaces(
            context.interfaces, chosen: context.chosenInterface, choiceError: context.choiceError,
            named: context.interfaceSource)
    }

    /// VPN, container and VM interfaces that may take the group.
    package static let otherInterfaces = DoctorCheck(name: InterfaceCheck.othersName) { context in
        InterfaceCheck.others(context.interfaces, chosen: context.chosenInterface)
    }

    /// Rules of nftables and iptables on every port Baton uses and the group. The self-test
    /// weighs the finding again once it knows what got through (`DoctorContext.weighFirewall`).
    package static let firewall = DoctorCheck(name: FirewallCheck.name) { context in
        let readings = FirewallCheck.read()
        context.firewallReadings = readings
        return FirewallCheck.finding(readings, ports: context.ports, group: context.configuration.group)
    }

    /// This machine's identity and device list, read first: every other command refuses to run
    /// without them, and a removed machine or one that lists no one hears no one.
    package static let devices = DoctorCheck(name: DoctorMembership.name) { context in
        let (finding, files) = DoctorMembership.check(environment: context.environment)
        context.files = files
        return finding
    }

    /// The key file's presence and mode (or BATON_KEY); keeps the key, and the previous one, for listening.
    package static let key = DoctorCheck(name: KeyCheck.name) { context in
        let (finding, key) = KeyCheck.check(keyFile: context.keyFile, environment: context.environment)
        context.keyFromEnvironment = KeyCheck.fromEnvironment(keyFile: context.keyFile, environment: context.environment)
        context.previousKey = key == nil ? nil : KeyCheck.previous(keyFile: context.keyFile, environment: context.environment)
        context.key = key
        return finding
    }

    /// A probe through the kernel to the group and back.
    package static let selfTest = DoctorCheck(name: MulticastCheck.selfTestName) { context in
        let run = await context.multicast()
        context.weighFirewall(against: run)
        return MulticastCheck.selfTest(
            run.selfTest, group: context.configuration.group, port: context.configuration.port,
            interface: run.interface ?? context.chosenInterface, suggestedLAN: InterfaceCheck.suggestedLAN(context.interfaces))
    }

    /// What a few seconds of listening heard: peers, and datagrams under another key. A removal
    /// of this machine heard meanwhile replaces the devices finding, which read the files before.
    package static let listening = DoctorCheck(name: MulticastCheck.listenName) { context in
        let run = await context.multicast()
        let removed = context.membership?.roster.ownRemoval != nil
        if run.removedWhileListening, let roster = context.membership?.roster,
            let index = context.findings.firstIndex(where: { $0.name == DoctorMembership.name })
        {
            context.findings[index] = DoctorMembership.finding(roster, environment: context.environment)
        }
        return MulticastCheck.listening(
            run.tally, seconds: context.listenSeconds, skippedBecause: run.listenSkipped, removed: removed,
            keyFromEnvironment: context.keyFromEnvironment, environment: context.environment)
    }

    /// The unicast peers: which answered. When multicast failed but one answered, the
    /// self-test's fix becomes `--peer`, since that is what works on this network.
    package static let unicast = DoctorCheck(name: MulticastCheck.unicastName) { context in
        let run = await context.multicast()
        let listed = context.configuration.peers.map(\.address)
        let multicastWorks = if case .returned = run.selfTest { true } else { false }
        let finding = MulticastCheck.unicast(
            peers: listed, heard: run.tally?.sources, multicastWorks: multicastWorks,
            unresolved: context.configuration.unresolvedPeers)
        let answered = listed.filter { run.tally?.sources.contains($0) == true }
        if !answered.isEmpty, !multicastWorks {
            MulticastCheck.preferUnicast(answered: answered, in: &context.findings)
        }
        return finding
    }

    /// Every check, in the order their findings are printed and the first fix is chosen.
    package static let standard: [DoctorCheck] = [
        devices, interfaces, otherInterfaces, firewall, key, selfTest, listening, unicast,
    ]
}

/// What the checks of one run share: the settings, the interfaces, the key, the multicast run.
@MainActor
package final class DoctorContext {
    package let configuration: MulticastConfiguration
    /// Every port Baton uses here: the datagram port, pairing's, and the state stream's.
    package let ports: [BatonPort]
    package let keyFile: String?
    package let environment: [String: String]
    package let listenSeconds: Double
    /// How long the self-test waits for its probe.
    package let probeTimeout: Double
    /// This namespace's interfaces.
    package let interfaces: [DoctorInterface]
    /// The interface Baton would join, as the transport chooses it.
    package let chosenInterface: String?
    /// Why no interface could be chosen (an unusable --interface), or nil.
    package let choiceError: String?
    /// `--interface` or `BATON_INTERFACE` when one named the interface.
    package let interfaceSource: String?
    /// This machine's identity and device list, once the devices check read them.
    package var files: DoctorMembership.Files?
    /// The key before the last change (`….old`), kept beside `key`: datagrams under it are a
    /// change under way, not another group.
    package var previousKey: GroupKey?
    /// Whether the key comes from `BATON_KEY`, which takes the place of the key file.
    package var keyFromEnvironment = false
    /// The group key, once the key check found a usable one.
    package var key: GroupKey? {
        didSet {
            membership = key.flatMap { key in
                files.map { DoctorMembership.membership($0, keys: GroupKeys(current: key, previous: previousKey)) }
            }
        }
    }
    /// This machine's identity and list of devices with `key`, once there is a key: what listening
    /// reads datagrams with, and what doctor's QUERY is signed with.
    package private(set) var membership: Membership?
    /// What the checks so far found, in order.
    package internal(set) var findings: [DoctorFinding] = []
    /// The relay to check (`--relay`, `BATON_RELAY` or the `relay` file), when one is configured.
    package var relay: RelayConfiguration?

    /// What the firewall check read, kept to weigh it against the multicast run.
    package var firewallReadings: [FirewallCheck.Reading]?

    private var multicastRun: MulticastRun?

    /// `streamPort` is the state stream's TCP port (`--stream-port`, 0: any free one at each
    /// start); `pairingPort` that of `baton pair`.
    package init(
        configuration: MulticastConfiguration, interfaceSource: String?, keyFile: String?,
        environment: [String: String], listenSeconds: Double, probeTimeout: Double = 1,
        streamPort: Int = 0, pairingPort: Int = Pairing.defaultPort
    ) {
        self.configuration = configuration
        self.ports = BatonPort.all(datagrams: configuration.port, pairing: pairingPort, stream: streamPort)
        self.interfaceSource = interfaceSource
        self.keyFile = keyFile
        self.environment = environment
        self.listenSeconds = listenSeconds
        self.probeTimeout = probeTimeout
        self.interfaces = DoctorInterface.list()
        do {
            self.chosenInterface = try MulticastTransport.interfaceName(for: configuration)
            self.choiceError = nil
        } catch {
            self.chosenInterface = nil
            self.choiceError = error.description
        }
    }

    /// The multicast run, made on first use: one transport joined as Baton joins, a probe and a
    /// QUERY sent, then listening for `listenSeconds` (at least until the probe is back or lost).
    package func multicast() async -> MulticastRun {
        if let multicastRun { return multicastRun }
        let run = await MulticastRun.perform(
            configuration: configuration, membership: membership, listenSeconds: listenSeconds,
            probeTimeout: probeTimeout)
        multicastRun = run
        return run
    }

    /// The firewall's finding again, now that `run` says what got through: the self-test and
    /// what was heard outrank the reading of rule text, so a reading they contradict is no problem.
    func weighFirewall(against run: MulticastRun) {
        guard let readings = firewallReadings,
              let index = findings.firstIndex(where: { $0.name == FirewallCheck.name }) else { return }
        findings[index] = FirewallCheck.finding(
            readings, ports: ports, group: configuration.group, evidence: run.evidence)
    }

    /// Runs `checks` in order.
    package func run(_ checks: [DoctorCheck]) async -> DoctorReport {
        for check in checks {
            findings.append(await check.run(self))
        }
        return DoctorReport(findings: findings)
    }
}

