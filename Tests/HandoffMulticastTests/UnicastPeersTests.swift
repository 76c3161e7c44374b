import Foundation
import Testing
@testable import HandoffMulticast

/// `--peer`, `BATON_PEERS` and the peers file: parsing, merging and resolving.
@Suite("Unicast peers")
struct UnicastPeersTests {
    /// Resolves `*.test` names from a table, without DNS.
    static let table: [String: String] = ["nas.test": "10.77.0.12", "alias.test": "10.77.0.12", "pi.test": "10.77.0.13"]
    static let resolver: UnicastPeers.Resolver = { host in
        if host.split(separator: ".").count == 4, host.allSatisfy({ $0.isNumber || $0 == "." }) { return .success(host) }
        if let ip = table[host] { return .success(ip) }
        return .failure(.init(reason: "Name or service not known"))
    }

    @Test("HOST and HOST:PORT parse; the port is optional")
    func entries() throws {
        #expect(try UnicastPeers.parseEntry("nas.local", source: "--peer") == .init(host: "nas.local", port: nil, source: "--peer"))
        #expect(try UnicastPeers.parseEntry("10.0.0.2:5000", source: "--peer") == .init(host: "10.0.0.2", port: 5000, source: "--peer"))
        #expect(try UnicastPeers.parseEntry("h:65535", source: "x").port == 65535)
    }

    @Test("A bad port, an empty host, IPv6 and stray characters are errors that name the entry and its source",
        arguments: [
            ("nas:0", "invalidPort"), ("nas:65536", "invalidPort"), ("nas:", "invalidPort"), ("nas:http", "invalidPort"),
            ("nas:+80", "invalidPort"), (":47788", "invalidEntry"), ("", "invalidEntry"), ("a b", "invalidEntry"),
            ("::1", "ipv6"), ("[fe80::1]:47788", "ipv6"), ("fe80::1", "ipv6"),
        ])
    func badEntries(text: String, kind: String) {
        do {
            _ = try UnicastPeers.parseEntry(text, source: "--peer")
            Issue.record("'\(text)' was accepted")
        } catch {
            let name = switch error {
            case .invalidPort: "invalidPort"
            case .invalidEntry: "invalidEntry"
            case .ipv6: "ipv6"
            default: "\(error)"
            }
            #expect(name == kind, "'\(text)': \(error)")
            #expect(error.description.contains("'\(text)' (--peer)"), "\(error)")
        }
    }

    @Test("BATON_PEERS takes commas, spaces or both")
    func list() throws {
        let entries = try UnicastPeers.parseList(" a.test, b.test:1 c.test ,,\td.test ", source: "BATON_PEERS")
        #expect(entries.map(\.host) == ["a.test", "b.test", "c.test", "d.test"])
        #expect(entries.map(\.port) == [nil, 1, nil, nil])
        #expect(try UnicastPeers.parseList("", source: "BATON_PEERS").isEmpty)
    }

    @Test("The peers file: one a line, # comments, blank lines ignored; an error names the file and line")
    func file() throws {
        let text = """
            # the NAS in the hall
            nas.test

              10.77.0.13:47790   # the pi
            \t
            """
        let entries = try UnicastPeers.parseFile(text, path: "/c/baton/peers")
        #expect(entries == [
            .init(host: "nas.test", port: nil, source: "/c/baton/peers:2"),
            .init(host: "10.77.0.13", port: 47790, source: "/c/baton/peers:4"),
        ])
        #expect(throws: UnicastPeerError.invalidPort(value: "pi:99999", source: "/c/baton/peers:2")) {
            try UnicastPeers.parseFile("ok.test\npi:99999\n", path: "/c/baton/peers")
        }
    }

    @Test("Entries are resolved once and merged: the same address and port is kept once, where it first appears")
    func mergeAndDedup() throws {
        let entries = [
            UnicastPeerEntry(host: "nas.test", port: nil, source: "--peer"),
            UnicastPeerEntry(host: "10.77.0.13", port: 47788, source: "--peer"),
            UnicastPeerEntry(host: "alias.test", port: 47788, source: "BATON_PEERS"),  // nas.test again
            UnicastPeerEntry(host: "nas.test", port: 5000, source: "BATON_PEERS"),  // another port: another peer
            UnicastPeerEntry(host: "pi.test", port: nil, source: "peers:1"),  // 10.77.0.13 again
        ]
        let peers = try UnicastPeers.resolve(entries, defaultPort: 47788, resolver: Self.resolver)
        #expect(peers.map(\.description) == ["10.77.0.12:47788", "10.77.0.13:47788", "10.77.0.12:5000"])
    }

    @Test("An entry without a port takes the configured UDP port")
    func defaultPort() throws {
        let peers = try UnicastPeers.resolve(
            [UnicastPeerEntry(host: "nas.test", port: nil, source: "--peer")], defaultPort: 5001, resolver: Self.resolver)
        #expect(peers == [UnicastPeer(address: "10.77.0.12", port: 5001)])
    }

    @Test("A name that does not resolve is an error naming it, where it came from and why")
    func unresolvable() {
        let entries = [UnicastPeerEntry(host: "nas.local", port: nil, source: "--peer")]
        do {
            _ = try UnicastPeers.resolve(entries, defaultPort: 47788, resolver: Self.resolver)
            Issue.record("resolved")
        } catch {
            #expect(error == .cannotResolve(host: "nas.local", source: "--peer", reason: "Name or service not known"))
            #expect(error.description.hasPrefix("cannot resolve peer 'nas.local' (--peer): Name or service not known"))
        }
    }

    @Test("getaddrinfo: a dotted address stands for itself, localhost is IPv4 loopback, a .invalid name fails")
    func systemResolver() throws {
        #expect(try UnicastPeers.resolveIPv4("192.0.2.7").get() == "192.0.2.7")
        #expect(try UnicastPeers.resolveIPv4("localhost").get().hasPrefix("127."))
        // RFC 6761: .invalid names never resolve.
        guard case .failure(let failure) = UnicastPeers.resolveIPv4("nothing-here.invalid") else {
            Issue.record("nothing-here.invalid resolved")
            return
        }
        #expect(!failure.reason.isEmpty)
    }

    @Test("A missing peers file is an empty list")
    func missingFile() throws {
        #expect(try UnicastPeers.readFile(at: "/nonexistent/baton/peers").isEmpty)
    }

    @Test("The transport's description names its unicast peers")
    func description() {
        #expect(MulticastTransport.unicastDescription([]) == "")
        #expect(MulticastTransport.unicastDescription([.init(address: "10.0.0.2", port: 47788), .init(address: "10.0.0.3", port: 1)])
            == " + unicast 10.0.0.2:47788, 10.0.0.3:1")
    }
}
