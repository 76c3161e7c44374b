import FoundationEssentials
import HandoffWire

#if canImport(Glibc)
import Glibc
#endif

/// A peer that is sent every datagram by unicast as well, for networks where multicast does
/// not pass: an IPv4 address and a UDP port, resolved once at start.
public struct UnicastPeer: Hashable, Sendable, CustomStringConvertible {
    /// Dotted-decimal IPv4, e.g. `10.77.0.12`.
    public var address: String
    /// The UDP port, 1…65535.
    public var port: Int

    public init(address: String, port: Int) {
        self.address = address
        self.port = port
    }

    /// `10.77.0.12:47788`.
    public var description: String { "\(address):\(port)" }
}

/// One `HOST[:PORT]` as written, with where it came from (`--peer`, `BATON_PEERS`, `peers:3`).
public struct UnicastPeerEntry: Equatable, Sendable {
    public var host: String
    /// Nil when the entry names no port: the Baton port is used.
    public var port: Int?
    /// Where the entry was written, for errors.
    public var source: String

    public init(host: String, port: Int?, source: String) {
        self.host = host
        self.port = port
        self.source = source
    }
}

/// A unicast peer that cannot be used, naming the entry and where it came from.
public enum UnicastPeerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The entry is not `HOST` or `HOST:PORT`.
    case invalidEntry(value: String, source: String)
    /// The entry's port is not 1…65535.
    case invalidPort(value: String, source: String)
    /// The entry is an IPv6 address; Baton's transport is IPv4.
    case ipv6(value: String, source: String)
    /// The host name has no IPv4 address.
    case cannotResolve(host: String, source: String, reason: String)
    /// The peers file exists but cannot be read.
    case unreadableFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidEntry(let value, let source):
            "peer '\(value)' (\(source)) is not HOST or HOST:PORT; write e.g. 192.168.1.20 or nas.local:47788."
        case .invalidPort(let value, let source):
            "peer '\(value)' (\(source)) has an invalid port; use a whole number from 1 to 65535, "
                + "or leave it out for \(MulticastConfiguration.defaultPort)."
        case .ipv6(let value, let source):
            "peer '\(value)' (\(source)) is an IPv6 address; Baton sends over IPv4: give the peer's IPv4 address or name."
        case .cannotResolve(let host, let source, let reason):
            "cannot resolve peer '\(host)' (\(source)): \(reason); check the name, or give its IPv4 address."
        case .unreadableFile(let path, let reason):
            "cannot read the peers file \(path): \(reason); fix its permissions or remove it."
        }
    }
}

/// The unicast peer list: `--peer` flags, `BATON_PEERS` and the `peers` file, merged.
public enum UnicastPeers {
    /// The environment variable listing peers, separated by commas or spaces.
    public static let variable = "BATON_PEERS"
    /// The file in Baton's config folder that lists peers, one a line.
    public static let fileName = "peers"

    /// Turns a host name into an IPv4 address, or says why it cannot.
    public typealias Resolver = @Sendable (String) -> Result<String, ResolutionFailure>

    /// Why a host name did not resolve, in the resolver's words.
    public struct ResolutionFailure: Error, Equatable, Sendable {
        public var reason: String
        public init(reason: String) { self.reason = reason }
    }

    /// The `peers` file: `$XDG_CONFIG_HOME/baton/peers` or `~/.config/baton/peers`.
    public static func defaultFilePath(folder: String) -> String {
        PlainText.path(folder, fileName)
    }

    /// Parses `HOST` or `HOST:PORT`.
    public static func parseEntry(_ text: String, source: String) throws(UnicastPeerError) -> UnicastPeerEntry {
        guard !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == "," || $0 == "/" }) else {
            throw .invalidEntry(value: text, source: source)
        }
        let colons = text.filter { $0 == ":" }.count
        if colons > 1 || text.hasPrefix("[") { throw .ipv6(value: text, source: source) }
        guard colons == 1 else { return UnicastPeerEntry(host: text, port: nil, source: source) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let host = String(parts[0])
        let portText = String(parts[1])
        guard !host.isEmpty else { throw .invalidEntry(value: text, source: source) }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), portText.count <= 5,
            let port = Int(portText), (1...65535).contains(port)
        else { throw .invalidPort(value: text, source: source) }
        return UnicastPeerEntry(host: host, port: port, source: source)
    }

    /// Parses a list of entries separated by commas or white space (`BATON_PEERS`).
    public static func parseList(_ text: String, source: String) throws(UnicastPeerError) -> [UnicastPeerEntry] {
        var entries: [UnicastPeerEntry] = []
        for item in text.split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
            entries.append(try parseEntry(String(item), source: source))
        }
        return entries
    }

    /// Parses a peers file: one `HOST[:PORT]` per line; `#` starts a comment; blank lines are ignored.
    /// Each entry's source is `path:line`.
    public static func parseFile(_ contents: String, path: String) throws(UnicastPeerError) -> [UnicastPeerEntry] {
        var entries: [UnicastPeerEntry] = []
        for (index, line) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = text.trimmed(newlines: false)
            guard !trimmed.isEmpty else { continue }
            entries.append(try parseEntry(trimmed, source: "\(path):\(index + 1)"))
        }
        return entries
    }

    /// Reads the peers file at `path`; a missing file is an empty list.
    public static func readFile(at path: String) throws(UnicastPeerError) -> [UnicastPeerEntry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let contents: String
        do {
            contents = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadableFile(path: path, reason: PlainText.reason(error))
        }
        return try parseFile(contents, path: path)
    }

    /// How often a transport tries again the names that did not resolve.
    public static let retryInterval: Double = 30

    /// What resolving a list gave: the peers, and the entries whose names did not resolve (with
    /// why), which are skipped for now and tried again later.
    public struct Resolution: Equatable, Sendable {
        public var peers: [UnicastPeer]
        public var unresolved: [(entry: UnicastPeerEntry, error: UnicastPeerError)]

        public static func == (a: Resolution, b: Resolution) -> Bool {
            a.peers == b.peers && a.unresolved.map(\.entry) == b.unresolved.map(\.entry)
                && a.unresolved.map(\.error) == b.unresolved.map(\.error)
        }

        /// The warning for an entry that did not resolve: it is skipped and tried again.
        public static func warning(_ error: UnicastPeerError) -> String {
            "warning: \(error.description) Skipped for now; Baton tries it again every \(Int(retryInterval)) s."
        }
    }

    /// Every entry, resolved as `resolve` does, except that a name that does not resolve is not
    /// an error: it is returned among `unresolved`, with why.
    public static func resolveSkipping(
        _ entries: [UnicastPeerEntry], defaultPort: Int, resolver: Resolver = UnicastPeers.resolveIPv4
    ) -> Resolution {
        var resolution = Resolution(peers: [], unresolved: [])
        var seen: Set<UnicastPeer> = []
        var resolved: [String: Result<String, ResolutionFailure>] = [:]
        for entry in entries {
            let result = resolved[entry.host] ?? resolver(entry.host)
            resolved[entry.host] = result
            switch result {
            case .success(let address):
                let peer = UnicastPeer(address: address, port: entry.port ?? defaultPort)
                if seen.insert(peer).inserted { resolution.peers.append(peer) }
            case .failure(let failure):
                resolution.unresolved.append(
                    (entry, .cannotResolve(host: entry.host, source: entry.source, reason: failure.reason)))
            }
        }
        return resolution
    }

    /// Every entry of `--peer` flags, `BATON_PEERS` and the peers file (in that order), resolved
    /// with `resolver`, with `defaultPort` for entries that name none; an address listed more
    /// than once is kept once, where it first appears.
    public static func resolve(
        _ entries: [UnicastPeerEntry], defaultPort: Int, resolver: Resolver = UnicastPeers.resolveIPv4
    ) throws(UnicastPeerError) -> [UnicastPeer] {
        var peers: [UnicastPeer] = []
        var seen: Set<UnicastPeer> = []
        var resolved: [String: String] = [:]
        for entry in entries {
            let address: String
            if let known = resolved[entry.host] {
                address = known
            } else {
                switch resolver(entry.host) {
                case .success(let ip): address = ip
                case .failure(let failure):
                    throw .cannotResolve(host: entry.host, source: entry.source, reason: failure.reason)
                }
                resolved[entry.host] = address
            }
            let peer = UnicastPeer(address: address, port: entry.port ?? defaultPort)
            if seen.insert(peer).inserted { peers.append(peer) }
        }
        return peers
    }

    /// The first IPv4 address of `host` by `getaddrinfo` (a dotted-decimal address stands for itself).
    public static let resolveIPv4: Resolver = { host in
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(ResolutionFailure(reason: reason))
        }
        defer { freeaddrinfo(list) }
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if current.pointee.ai_family == AF_INET, let sockaddr = current.pointee.ai_addr {
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                let ok = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var inAddress = address.pointee.sin_addr
                    return inet_ntop(AF_INET, &inAddress, &text, socklen_t(INET_ADDRSTRLEN)) != nil
                }
                if ok { return .success(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
            }
            node = current.pointee.ai_next
        }
        return .failure(ResolutionFailure(reason: "it has no IPv4 address"))
    }
}
