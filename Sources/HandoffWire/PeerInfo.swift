import Foundation
import PropertyList

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
    public static let currentProtocolVersion = 2

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
        let user = ProcessInfo.processInfo.environment["USER"]
            ?? ProcessInfo.processInfo.environment["LOGNAME"] ?? "user"
        return PeerInfo(name: name ?? "\(user)@\(shortHost)", host: host, app: app, appVersion: appVersion)
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
