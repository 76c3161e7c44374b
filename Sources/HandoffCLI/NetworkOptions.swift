import ArgumentParser
import BatonResources
import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffWire
import BatonFiles

/// The options every Baton program takes to find its peers: where, with which key, as whom.
///
/// A flag wins over its `BATON_*` variable, which wins over the protocol's default.
public struct NetworkOptions: ParsableArguments {
    @Option(help: ArgumentHelp("IPv4 multicast group to join (env BATON_GROUP).", valueName: "address"))
    public var group: String?

    @Option(help: ArgumentHelp("UDP port (env BATON_PORT).", valueName: "port"))
    public var port: Int?

    @Option(help: ArgumentHelp("Multicast TTL; 1 keeps datagrams on this LAN segment (env BATON_TTL).", valueName: "hops"))
    public var ttl: Int?

    @Option(help: ArgumentHelp(
        "Network interface to join and send on, e.g. eth0; pick one when a VPN or Docker bridge is in the way (env BATON_INTERFACE).",
        valueName: "name"))
    public var interface: String?

    @Option(name: .customLong("peer"), help: ArgumentHelp(
        "Also send every datagram by unicast to this peer, for networks where multicast does not pass (Wi-Fi isolation, VPN); repeatable; PORT defaults to the UDP port, 47788. One side is enough: a peer heard by unicast is answered by unicast (env BATON_PEERS, comma- or space-separated; file ~/.config/baton/peers, one a line).",
        valueName: "host[:port]"))
    public var peers: [String] = []

    @Option(name: .customLong("relay"), help: ArgumentHelp(
        "Also meet peers through this MQTT broker, for sites that multicast does not reach (another subnet, VLAN or site): mqtt://HOST[:PORT] (port 1883) or mqtts://HOST[:PORT] (TLS, 8883). The broker sees only sealed datagrams (env BATON_RELAY; file ~/.config/baton/relay).",
        valueName: "url"))
    public var relay: String?

    @Option(name: .customLong("relay-ca"), help: ArgumentHelp(
        "PEM file of the certificate authorities to trust for an mqtts:// relay (env BATON_RELAY_CA; default: the system's).",
        valueName: "file"),
        completion: .file())
    public var relayCA: String?

    @Option(name: .customLong("relay-user"), help: ArgumentHelp(
        "User name for a relay that refuses anonymous clients; its password is read from BATON_RELAY_PASSWORD or --relay-password-file, never from the command line, where ps would show it (env BATON_RELAY_USER; relay file: user NAME).",
        valueName: "name"))
    public var relayUser: String?

    @Option(name: .customLong("relay-password-file"), help: ArgumentHelp(
        "File holding the relay's password alone, readable only by you (chmod 600); BATON_RELAY_PASSWORD holds the password itself instead (env BATON_RELAY_PASSWORD_FILE; relay file: password-file FILE).",
        valueName: "file"),
        completion: .file())
    public var relayPasswordFile: String?

    @Option(name: .customLong("relay-cert"), help: ArgumentHelp(
        "PEM client certificate for an mqtts:// relay that asks for one, with its key in --relay-cert-key (env BATON_RELAY_CERT; relay file: cert FILE).",
        valueName: "file"),
        completion: .file())
    public var relayCert: String?

    @Option(name: .customLong("relay-cert-key"), help: ArgumentHelp(
        "PEM private key of --relay-cert, without a passphrase: Baton never asks for one (env BATON_RELAY_CERT_KEY; relay file: cert-key FILE).",
        valueName: "file"),
        completion: .file())
    public var relayCertKey: String?

    /// Taken only to be refused with what to do instead: a password on the command line is
    /// seen by every user of the machine.
    @Option(name: .customLong("relay-password"), help: ArgumentHelp(visibility: .private))
    public var relayPassword: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "File with the group key (base64), which pairing gives; paired machines with the same key see each other (env BATON_KEY holds the key itself and takes the place of the file).",
        valueName: "path"),
        completion: .file())
    public var keyFile: String?

    @Option(help: ArgumentHelp("How peers see you (default: user@host).", valueName: "name"))
    public var name: String?

    @Option(help: ArgumentHelp(
        "Info.plist-style registry of the activity types this program continues (default: the one compiled in, Resources/Registry/ActivityTypes.plist).",
        valueName: "file"),
        completion: .file(extensions: ["plist"]))
    public var registry: String?

    @Option(name: .customLong("max-datagram"), help: ArgumentHelp(
        "Largest UDP payload to send, 600-65507 (env BATON_MAX_DATAGRAM, default 1200). Larger activities are offered and fetched over TCP.",
        valueName: "bytes"))
    public var maxDatagram: Int?

    @Option(name: .customLong("stream-port"), help: ArgumentHelp(
        "TCP port that serves large activities to peers; 0 picks a free one (env BATON_STREAM_PORT, default 0).",
        valueName: "port"))
    public var streamPort: Int?

    public init() {}

    /// The largest datagram to send: `--max-datagram`, else `BATON_MAX_DATAGRAM`, else 1,200.
    public func maximumDatagramSize(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        try Self.number(
            flag: maxDatagram, flagName: "--max-datagram", environment: environment, variable: "BATON_MAX_DATAGRAM",
            range: 600...65_507, default: ActivityCenter.Configuration.defaultMaximumDatagramSize)
    }

    /// The TCP port of the state stream: `--stream-port`, else `BATON_STREAM_PORT`, else 0 (any free port).
    public func stateStreamPort(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        try Self.number(
            flag: streamPort, flagName: "--stream-port", environment: environment, variable: "BATON_STREAM_PORT",
            range: 0...65_535, default: 0)
    }

    private static func number(
        flag: Int?, flagName: String, environment: [String: String], variable: String, range: ClosedRange<Int>,
        default value: Int
    ) throws -> Int {
        if let flag {
            guard range.contains(flag) else {
                throw CommandFailure("\(flagName) \(flag) is out of range: use \(range.lowerBound)-\(range.upperBound).")
            }
            return flag
        }
        guard let text = environment[variable], !text.isEmpty else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw CommandFailure("\(variable)='\(text)' is not a number in \(range.lowerBound)-\(range.upperBound); fix or unset it.")
        }
        return number
    }

    /// The multicast settings: flags over environment over defaults. A peer whose name does not
    /// resolve is not an error: `warn` is told (standard error unless told otherwise), and the
    /// peer is skipped and tried again later (`MulticastConfiguration.unresolvedPeers`).
    public func multicastConfiguration(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        resolver: UnicastPeers.Resolver = UnicastPeers.resolveIPv4,
        warn: (String) -> Void = Console.note
    ) throws -> MulticastConfiguration
    {
        var config = try MulticastConfiguration.fromEnvironment(environment)
        if let group { config.group = try MulticastConfiguration.parseGroup(group, source: "--group") }
        if let port { config.port = try MulticastConfiguration.parsePort(String(port), source: "--port") }
        if let ttl { config.ttl = try MulticastConfiguration.parseTTL(String(ttl), source: "--ttl") }
        if let interface { config.interface = try MulticastConfiguration.parseInterfaceName(interface, source: "--interface") }
        let resolution = try unicastPeerResolution(environment: environment, defaultPort: config.port, resolver: resolver)
        config.peers = resolution.peers
        config.unresolvedPeers = resolution.unresolved.map(\.entry)
        for (_, error) in resolution.unresolved { warn(PeerText.visible(UnicastPeers.Resolution.warning(error))) }
        return config
    }

    /// The unicast peers of `--peer`, `BATON_PEERS` and the `peers` file, merged and resolved
    /// once, now; the names that do not resolve are returned apart, with why. A bad entry or
    /// port is an error naming the entry and its source.
    public func unicastPeerResolution(
        environment: [String: String] = ProcessInfo.processInfo.environment, defaultPort: Int,
        resolver: UnicastPeers.Resolver = UnicastPeers.resolveIPv4
    ) throws(UnicastPeerError) -> UnicastPeers.Resolution {
        UnicastPeers.resolveSkipping(try unicastEntries(environment: environment), defaultPort: defaultPort, resolver: resolver)
    }

    /// The unicast peers of `--peer`, `BATON_PEERS` and the `peers` file in Baton's config
    /// folder, merged (an address given twice is used once) and resolved to IPv4 once, now.
    /// A name that does not resolve, or a bad port, is an error naming the entry and its source.
    public func unicastPeers(
        environment: [String: String] = ProcessInfo.processInfo.environment, defaultPort: Int,
        resolver: UnicastPeers.Resolver = UnicastPeers.resolveIPv4
    ) throws(UnicastPeerError) -> [UnicastPeer] {
        try UnicastPeers.resolve(try unicastEntries(environment: environment), defaultPort: defaultPort, resolver: resolver)
    }

    /// The entries of `--peer`, `BATON_PEERS` and the `peers` file, in that order, unresolved.
    func unicastEntries(environment: [String: String]) throws(UnicastPeerError) -> [UnicastPeerEntry] {
        var entries: [UnicastPeerEntry] = []
        for text in peers {
            entries.append(try UnicastPeers.parseEntry(text, source: "--peer"))
        }
        if let text = environment[UnicastPeers.variable], !text.isEmpty {
            entries += try UnicastPeers.parseList(text, source: UnicastPeers.variable)
        }
        entries += try UnicastPeers.readFile(
            at: UnicastPeers.defaultFilePath(folder: GroupKey.defaultFolder(environment: environment)))
        return entries
    }

    /// The registry named by `--registry`, or the one compiled in. The `NSUserActivityTypes` entries
    /// it skipped (intent class names, Xcode build variables) go to `warn`, one line each:
    /// standard error unless told otherwise. Call it once per run.
    public func loadRegistry(
        warn: (String) -> Void = Console.note
    ) throws -> ActivityTypeRegistry {
        let loaded: ActivityTypeRegistry
        if let registry {
            loaded = try ActivityTypeRegistry(contentsOf: URL(fileURLWithPath: registry))
        } else {
            loaded = try ActivityTypeRegistry(data: BatonResources.registryData, path: BatonResources.registryName)
        }
        for entry in loaded.skipped { warn(PeerText.visible(entry.description)) }
        return loaded
    }

    /// The group key from `--key-file`, `BATON_KEY` or the default file (created on first use).
    public func loadKey() throws -> (GroupKey, GroupKey.Source) {
        try GroupKey.load(keyFile: keyFile)
    }
}

/// A failure to report in one sentence and exit with status 1.
/// A command's failure, as the one message printed to stderr. Each line of it goes through
/// `PeerText.visible`, so peer text in it (a type, a name) cannot act on the terminal.
public struct CommandFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) {
        self.description = description.split(separator: "\n", omittingEmptySubsequences: false)
            .map { PeerText.visible(String($0)) }.joined(separator: "\n")
    }
}
