import Foundation
import HandoffCLI
import HandoffMulticast
import Testing

/// `--peer`, `BATON_PEERS` and `$XDG_CONFIG_HOME/baton/peers` together.
@Suite("Peer options")
struct PeerOptionsTests {
    static let resolver: UnicastPeers.Resolver = { host in
        switch host {
        case "nas.test": .success("10.77.0.12")
        case "pi.test": .success("10.77.0.13")
        case let ip where ip.hasPrefix("10."): .success(ip)
        default: .failure(.init(reason: "Name or service not known"))
        }
    }

    /// A config folder holding `peers` with `contents` (none when nil).
    static func environment(peersFile contents: String?, extra: [String: String] = [:]) throws -> [String: String] {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("baton-peers-\(UUID().uuidString)")
        let folder = config.appendingPathComponent("baton")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let contents {
            try contents.write(to: folder.appendingPathComponent("peers"), atomically: true, encoding: .utf8)
        }
        return ["XDG_CONFIG_HOME": config.path, "HOME": "/nonexistent"].merging(extra) { $1 }
    }

    @Test("Flags, BATON_PEERS and the peers file are merged in that order, each address once, on the configured port")
    func merged() throws {
        let options = try NetworkOptions.parse(["--peer", "nas.test", "--peer", "10.77.0.20:5000", "--port", "47790"])
        let environment = try Self.environment(
            peersFile: "# home\npi.test\nnas.test:47790\n", extra: ["BATON_PEERS": "10.77.0.21, nas.test 10.77.0.20:5000"])
        let config = try options.multicastConfiguration(environment: environment, resolver: Self.resolver)
        #expect(config.peers.map(\.description) == [
            "10.77.0.12:47790", "10.77.0.20:5000", "10.77.0.21:47790", "10.77.0.13:47790",
        ])
    }

    @Test("No peers anywhere: an empty list, multicast only")
    func none() throws {
        let config = try NetworkOptions.parse([]).multicastConfiguration(
            environment: try Self.environment(peersFile: nil), resolver: Self.resolver)
        #expect(config.peers.isEmpty)
    }

    @Test("Errors name the entry and where it came from", arguments: [
        ([String](), ["BATON_PEERS": "nas.test:0"], nil as String?, "peer 'nas.test:0' (BATON_PEERS) has an invalid port"),
        ([String](), [String: String](), "\n\nnas.test:70000\n" as String?, "peer 'nas.test:70000' ("),
    ])
    func errors(arguments: [String], extra: [String: String], file: String?, message: String) throws {
        let environment = try Self.environment(peersFile: file, extra: extra)
        let options = try NetworkOptions.parse(arguments)
        do {
            _ = try options.multicastConfiguration(environment: environment, resolver: Self.resolver, warn: { _ in })
            Issue.record("accepted")
        } catch {
            #expect("\(error)".hasPrefix(message), "\(error)")
            if file != nil { #expect("\(error)".contains("/baton/peers:3)"), "\(error)") }
        }
    }

    @Test("A name that does not resolve (away from its network) is a warning: skipped now, kept to try again")
    func unresolvedIsAWarning() throws {
        let environment = try Self.environment(peersFile: "\n\nghost.test\n")
        let options = try NetworkOptions.parse(["--peer", "nas.test", "--peer", "desk.local"])
        var warnings: [String] = []
        let config = try options.multicastConfiguration(environment: environment, resolver: Self.resolver) { warnings.append($0) }
        #expect(config.peers.map(\.description) == ["10.77.0.12:47788"])
        #expect(config.unresolvedPeers.map(\.host) == ["desk.local", "ghost.test"])
        #expect(config.unresolvedPeers.map(\.source).last?.hasSuffix("/baton/peers:3") == true)
        #expect(warnings.count == 2)
        #expect(warnings.first == "warning: cannot resolve peer 'desk.local' (--peer): Name or service not known; "
            + "check the name, or give its IPv4 address. Skipped for now; Baton tries it again every 30 s.")
    }
}
