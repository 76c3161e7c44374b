import FoundationEssentials
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Who a peer is, as it says in every ANNOUNCE and CONTINUED.
public struct PeerInfo: Hashable, Sendable, CustomStringConvertible {
    /// What a person sees, e.g. `alice@laptop`.
    public var name: String
    /// The host name of the machine.
    public var host: String
    /// The program, e.g. `baton`.
    public var app: String
    public var appVersion: String
    /// The protocol version the peer speaks (`peer.protocol`); nil when it did not say, which
    /// means version 1 (docs/PROTOCOL.md, "Versioning").
    public var protocolVersion: Int?

    /// The version this library speaks and sends.
    public static let currentProtocolVersion = 3

    public init(
        name: String, host: String, app: String, appVersion: String,
        protocolVersion: Int? = PeerInfo.currentProtocolVersion
    ) {
        self.name = name
        self.host = host
        self.app = app
        self.appVersion = appVersion
        self.protocolVersion = protocolVersion
    }

    /// `user@host` for this process, with the host's short name.
    public static func local(app: String, appVersion: String, name: String? = nil) -> PeerInfo {
        let host = ProcessInfo.processInfo.hostName
        let shortHost = host.split(separator: ".").first.map(String.init) ?? host
        let user = localUserName()
        return PeerInfo(name: name ?? "\(user)@\(shortHost)", host: host, app: app, appVersion: appVersion)
    }

    /// Who runs this process: `USER`, else `LOGNAME`, else the effective user's account name in
    /// the password database (root in a container often has neither variable), else `user`.
    public static func localUserName(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        accountName: () -> String? = PeerInfo.effectiveAccountName
    ) -> String {
        for variable in ["USER", "LOGNAME"] {
            if let value = environment[variable], !value.isEmpty { return value }
        }
        if let account = accountName(), !account.isEmpty { return account }
        return "user"
    }

    /// The effective user's name from the password database (`getpwuid_r(geteuid())`), or nil.
    public static func effectiveAccountName() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    public var description: String { name }

    var plist: PropertyListValue {
        var dict: [String: PropertyListValue] = [
            "name": .string(name), "host": .string(host), "app": .string(app), "appVersion": .string(appVersion),
        ]
        if let protocolVersion { dict["protocol"] = .integer(protocolVersion) }
        return .dictionary(dict)
    }
}
