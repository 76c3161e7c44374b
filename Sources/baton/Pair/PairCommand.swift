import ArgumentParser
import FoundationEssentials
import NIOConcurrencyHelpers
import BatonDoctor
import BatonFiles
import Handoff
import BatonMembership
import HandoffCLI
import HandoffMulticast
import HandoffPairing
import HandoffWire

/// `baton pair`: give a new machine this machine's group key, after both screens show the same code.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Share this machine's group key with a new machine: run `baton pair` here, `baton pair --join` there.",
        discussion: """
            Both machines show a six-digit code and the other machine's name and fingerprint; when \
            the code is the same on both screens and both people answer y, the new machine stores \
            the key (mode 0600; a different key it had is kept as group.key.old), each machine lists \
            the other in `baton devices`, and both print `Paired with NAME` with its fingerprint. \
            The joining machine writes --key-file, else ~/.config/baton/group.key, even when \
            BATON_KEY is set (which then still takes its place in that shell). \
            Anything else changes nothing and exits 1. The two find each other by UDP multicast on \
            the LAN (port 47790; TCP on the same port for the exchange). Where multicast does not \
            pass, give the joining machine the other's address: `baton pair --join --peer HOST[:PORT]`.
            The same code proves that nobody sits between the two machines; compare it before you \
            answer. docs/PROTOCOL.md, section 15, describes the protocol and what it proves.
            """)

    @Flag(help: "Join: receive the group key from a machine running `baton pair`.")
    var join = false

    @Option(help: ArgumentHelp(
        "With --join: connect to this machine running `baton pair` instead of finding it by multicast.",
        valueName: "host[:port]"))
    var peer: String?

    @Option(help: ArgumentHelp("UDP and TCP port for pairing.", valueName: "port"))
    var port: Int = Pairing.defaultPort

    @Option(help: ArgumentHelp("IPv4 multicast group to find the other machine on (env BATON_GROUP).", valueName: "address"))
    var group: String?

    @Option(help: ArgumentHelp("Network interface to find the other machine on (env BATON_INTERFACE).", valueName: "name"))
    var interface: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp("The key file to share, or, with --join, to write.", valueName: "path"))
    var keyFile: String?

    @Option(help: ArgumentHelp("How the other machine sees you (default: user@host).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("Give up after this many seconds, connecting and answers included.", valueName: "seconds"))
    var timeout: Double = Pairing.defaultTimeout

    func validate() throws {
        if peer != nil, !join { throw ValidationError("--peer is for the joining side: baton pair --join --peer HOST.") }
        guard (1...65_535).contains(port) else { throw ValidationError("--port \(port) is out of range: use 1-65535.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds.") }
    }

    func run() async throws {
        var config = try MulticastConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        if let group { config.group = try MulticastConfiguration.parseGroup(group, source: "--group") }
        if let interface { config.interface = try MulticastConfiguration.parseInterfaceName(interface, source: "--interface") }
        let myName = PeerInfo.local(app: "baton", appVersion: Baton.version, name: name).name
        let keyPath = keyFile ?? GroupKey.defaultPath()
        let devices = DeviceList.standard()
        let identity: DeviceIdentity
        let role: PairingMachine.Role
        var statements: [[UInt8]] = []
        // The list as this machine has it: a removed machine, this one or the other, cannot pair again.
        let roster: DeviceRoster
        if join {
            do {
                let loaded = try DeviceIdentity.load()
                identity = loaded.identity
                if loaded.created {
                    Self.say("This machine had no identity yet: one was made in \(loaded.path) (`baton id` shows it).")
                }
                // A device list that cannot be used stops here, before any key moves.
                roster = MembershipStore.roster(identity: identity, name: myName, snapshot: try devices.snapshot())
            } catch let error as DeviceIdentity.FileError {
                throw CommandFailure(error.description)
            } catch let error as DeviceList.Failure {
                throw CommandFailure(error.description)
            }
            role = .joiner
        } else {
            // The sharer hands over the key it uses and every statement it keeps (section 17).
            let loaded = try MembershipStore(keyFile: keyFile, name: myName).load()
            loaded.notices.forEach { Self.say($0) }
            identity = loaded.membership.identity
            role = .sharer(loaded.membership.keys.current)
            statements = loaded.membership.roster.statements.map(\.bytes)
            roster = loaded.membership.roster
        }
        let settings = PairingSession.Settings(
            port: port, group: config.group, interface: config.interface, peer: peer, timeout: timeout)
        let kept = KeptOld()
        if let peer {
            // Connecting is part of start(), and takes up to --timeout when nothing answers.
            Self.say("Connecting to `baton pair` at \(peer)…")
        }
        let session = PairingSession(
            role: role, name: myName, identity: identity, statements: statements, settings: settings
        ) { key, _ in
            // The joiner, on KEY, before STORED; the sharer's entry and the statements are listed on `.paired`.
            do {
                kept.path = try key.replaceKeepingOld(at: keyPath)
                return nil
            } catch {
                return String(describing: error)
            }
        }
        do {
            try await session.start()
        } catch {
            throw CommandFailure("\(error)")
        }
        if !join {
            Self.say("Waiting for `baton pair --join` on the other machine (found by multicast on \(config.group) port \(port); where multicast does not pass, run there: baton pair --join --peer \(DoctorInterface.addressForOthers())).")
        } else if peer == nil {
            Self.say("Looking for `baton pair` on this network (multicast on \(config.group) port \(port); where multicast does not pass, use --peer HOST).")
        }
        let record: @Sendable (String, PublicIdentity, [[UInt8]]) -> String? = { peerName, peer, statements in
            do {
                let isNew = try devices.recordPaired(name: peerName, identity: peer, at: Date(), statements: statements)
                return isNew ? nil : "It was listed already: its entry in \(devices.path) is updated."
            } catch {
                Self.complain("Paired, but the other machine could not be listed: \(error)")
                return ""
            }
        }
        let refusal = { @Sendable (peer: PublicIdentity, peerName: String) in roster.pairingRefusal(with: peer, name: peerName) }
        if await !Self.converse(
            with: session, joined: join, keyPath: keyPath, keptOld: { kept.path }, refusal: refusal, record: record)
        {
            throw ExitCode(1)
        }
    }

    /// Where the joining side kept the key it replaced, set on the session's thread.
    final class KeptOld: @unchecked Sendable {
        private let lock = NIOLock()
        private var stored: String?
        var path: String? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    static func say(_ text: String, newline: Bool = true) {
        Console.output(text + (newline ? "\n" : ""))
    }
}
