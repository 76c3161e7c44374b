import BatonFiles
import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffWire
import PropertyList

/// One setting as a Baton program would use it, and where its value came from.
public struct EffectiveSetting: Equatable, Sendable {
    /// Where a value came from, from the strongest to the weakest.
    public enum Origin: Equatable, Sendable, CustomStringConvertible {
        /// A command-line option, e.g. `--port`.
        case flag(String)
        /// An environment variable, e.g. `BATON_PORT`.
        case environment(String)
        /// A file, by its path.
        case file(String)
        /// Nothing set it: Baton's default.
        case `default`

        public var description: String {
            switch self {
            case .flag(let name): "flag \(name)"
            case .environment(let name): "environment \(name)"
            case .file(let path): "file \(path)"
            case .default: "default"
            }
        }

        /// One word for `--json`: flag, environment, file or default.
        public var kind: String {
            switch self {
            case .flag: "flag"
            case .environment: "environment"
            case .file: "file"
            case .default: "default"
            }
        }

        /// The flag, variable or path; nil for a default.
        public var source: String? {
            switch self {
            case .flag(let name), .environment(let name), .file(let name): name
            case .default: nil
            }
        }
    }

    /// The option's name without dashes, e.g. `port`.
    public var name: String
    /// The value as the program uses it, e.g. `47788`; `(none)` when there is none.
    public var value: String
    public var origin: Origin

    public init(_ name: String, _ value: String, _ origin: Origin) {
        self.name = name
        self.value = value
        self.origin = origin
    }

    /// The settings as `baton config` prints them: one per line, name, value and origin in
    /// columns, as `git config --show-origin` pairs a value with where it was set.
    public static func text(_ settings: [EffectiveSetting]) -> String {
        let nameWidth = settings.map(\.name.count).max() ?? 0
        let valueWidth = min(settings.map(\.value.count).max() ?? 0, 40)
        return settings.map { setting in
            let name = PlainText.padded(setting.name, to: nameWidth)
            let value =
                setting.value.count < valueWidth
                ? PlainText.padded(setting.value, to: valueWidth) : setting.value
            return PeerText.visible("\(name)  \(value)  (\(setting.origin))")
        }.joined(separator: "\n")
    }

    /// The settings as one JSON array of `{"name", "value", "origin", "source"}` objects.
    public static func json(_ settings: [EffectiveSetting]) -> String {
        PropertyListValue.array(settings.map { setting in
            var object: [String: PropertyListValue] = [
                "name": .string(setting.name), "value": .string(setting.value), "origin": .string(setting.origin.kind),
            ]
            if let source = setting.origin.source { object["source"] = .string(source) }
            return .dictionary(object)
        }).jsonText
    }
}

extension NetworkOptions {
    /// Every setting these options, `environment` and Baton's files give, as a program started
    /// with them would use it, with where each value came from. Reads the same sources in the
    /// same order as the program does (a flag, then its `BATON_*` variable, then a file in
    /// Baton's config folder, then the default), and fails as the program would on a bad value.
    /// Makes nothing: a key that does not exist yet is reported as the file it would be.
    ///
    /// - Parameters:
    ///   - logFile: `--log-file`, for the commands that take it.
    ///   - interfaceName: how the interface Baton would join is found (the route to the group).
    public func effectiveSettings(
        logFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        interfaceName: (MulticastConfiguration) -> String? = { try? MulticastTransport.interfaceName(for: $0) }
    ) throws -> [EffectiveSetting] {
        func origin(flag: Any?, _ flagName: String, variable: String) -> EffectiveSetting.Origin {
            if flag != nil { return .flag(flagName) }
            if let text = environment[variable], !text.isEmpty { return .environment(variable) }
            return .default
        }
        let multicast: MulticastConfiguration
        do {
            var config = try MulticastConfiguration.fromEnvironment(environment)
            if let group { config.group = try MulticastConfiguration.parseGroup(group, source: "--group") }
            if let port { config.port = try MulticastConfiguration.parsePort(String(port), source: "--port") }
            if let ttl { config.ttl = try MulticastConfiguration.parseTTL(String(ttl), source: "--ttl") }
            if let interface {
                config.interface = try MulticastConfiguration.parseInterfaceName(interface, source: "--interface")
            }
            multicast = config
        } catch {
            throw CommandFailure("\(error)")
        }
        var settings: [EffectiveSetting] = [
            .init("group", multicast.group, origin(flag: group, "--group", variable: MulticastConfiguration.groupVariable)),
            .init("port", String(multicast.port), origin(flag: port, "--port", variable: MulticastConfiguration.portVariable)),
            .init("ttl", String(multicast.ttl), origin(flag: ttl, "--ttl", variable: MulticastConfiguration.ttlVariable)),
        ]
        let interfaceOrigin = origin(flag: interface, "--interface", variable: MulticastConfiguration.interfaceVariable)
        if let named = multicast.interface {
            settings.append(.init("interface", named, interfaceOrigin))
        } else {
            let chosen = interfaceName(multicast).map { "\($0) (the route to the group)" } ?? "(none: no route to the group)"
            settings.append(.init("interface", chosen, .default))
        }

        // Unicast peers: every entry, each from where it was written.
        var entries: [UnicastPeerEntry] = []
        do {
            for text in peers { entries.append(try UnicastPeers.parseEntry(text, source: "--peer")) }
            if let text = environment[UnicastPeers.variable], !text.isEmpty {
                entries += try UnicastPeers.parseList(text, source: UnicastPeers.variable)
            }
            entries += try UnicastPeers.readFile(
                at: UnicastPeers.defaultFilePath(folder: GroupKey.defaultFolder(environment: environment)))
        } catch {
            throw CommandFailure("\(error)")
        }
        if entries.isEmpty {
            settings.append(.init("peer", "(none)", .default))
        }
        for entry in entries {
            let value = entry.port.map { "\(entry.host):\($0)" } ?? entry.host
            settings.append(.init("peer", value, Self.origin(ofSource: entry.source)))
        }

        // The relay: the same search as the program's, each value with its origin; of the
        // password, only where it comes from.
        if let relay = try relaySettings(environment: environment) {
            settings.append(.init("relay", relay.configuration.description, relay.address.origin))
            let values = [
                ("relay-ca", relay.ca), ("relay-user", relay.user), ("relay-password", relay.password),
                ("relay-cert", relay.certificate), ("relay-cert-key", relay.certificateKey),
            ]
            for case (let name, let value?) in values { settings.append(.init(name, value.text, value.origin)) }
        } else {
            settings.append(.init("relay", "(none)", .default))
        }

        // The key: where it is read from, never the key itself.
        if let keyFile {
            settings.append(.init("key", keyFile, .flag("--key-file")))
        } else if let text = environment["BATON_KEY"], !text.isEmpty {
            settings.append(.init("key", "(the variable's value)", .environment("BATON_KEY")))
        } else {
            let path = GroupKey.defaultPath(environment: environment)
            let exists = FileManager.default.fileExists(atPath: path)
            settings.append(.init("key", exists ? path : "\(path) (made on first use)", exists ? .file(path) : .default))
        }
        // This machine's identity and the devices it paired with: where they are kept.
        let identityPath = DeviceIdentity.defaultPath(environment: environment)
        if FileManager.default.fileExists(atPath: identityPath) {
            settings.append(.init("identity", identityPath, .file(identityPath)))
        } else {
            settings.append(.init("identity", "\(identityPath) (made on first use)", .default))
        }
        let devicesPath = DeviceList.standard(environment: environment).path
        if FileManager.default.fileExists(atPath: devicesPath) {
            settings.append(.init("devices", devicesPath, .file(devicesPath)))
        } else {
            settings.append(.init("devices", "\(devicesPath) (made at the first pairing)", .default))
        }

        let localName = PeerInfo.local(app: "baton", appVersion: "", name: name).name
        settings.append(.init("name", localName, name != nil ? .flag("--name") : .default))
        if let registry {
            settings.append(.init("registry", registry, .flag("--registry")))
        } else {
            settings.append(.init("registry", "built in (Resources/Registry/ActivityTypes.plist)", .default))
        }
        settings.append(.init(
            "max-datagram", String(try maximumDatagramSize(environment: environment)),
            origin(flag: maxDatagram, "--max-datagram", variable: "BATON_MAX_DATAGRAM")))
        let stream = try stateStreamPort(environment: environment)
        settings.append(.init(
            "stream-port", stream == 0 ? "0 (a free port, chosen at start)" : String(stream),
            origin(flag: streamPort, "--stream-port", variable: "BATON_STREAM_PORT")))
        if let logFile {
            settings.append(.init("log-file", logFile, .flag("--log-file")))
        } else if let path = environment["BATON_LOG"], !path.isEmpty {
            settings.append(.init("log-file", path, .environment("BATON_LOG")))
        } else {
            settings.append(.init("log-file", "(none)", .default))
        }
        return settings
    }

    /// A unicast entry's `source` (`--peer`, `BATON_PEERS`, or `PATH:LINE`) as an origin.
    static func origin(ofSource source: String) -> EffectiveSetting.Origin {
        if source == "--peer" { return .flag("--peer") }
        if source == UnicastPeers.variable { return .environment(source) }
        return .file(source)
    }
}
