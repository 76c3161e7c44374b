import Foundation
import Synchronization
import Handoff
import Testing
@testable import HandoffMulticast

/// Multicast as one path among several: what happens when it cannot work, when the address
/// changes, and how unicast peers find each other. Every lab is made by the test itself.
@Suite(
    "MulticastTransport beyond multicast",
    .serialized,
    .enabled(if: NetLab.isUsable, "needs root and working `ip netns` (the reason is printed)"),
    .timeLimit(.minutes(1))
)
struct MulticastReachTests {
    /// Both hosts as WireGuard-like interfaces are: no MULTICAST flag, no multicast route.
    private static func withoutMulticast(_ lab: NetLab, hosts: [Int]) throws {
        for host in hosts {
            try lab.exec(host: host, "ip", "link", "set", "v0", "multicast", "off")
            try lab.exec(host: host, "ip", "route", "del", "224.0.0.0/4", "dev", "v0")
        }
    }

    @Test("No MULTICAST flag and no route, a peer named on one side only: both ways work by unicast")
    func namingOneSideIsEnough() async throws {
        try await NetLab.withLab(hosts: 2) { lab in
            try Self.withoutMulticast(lab, hosts: [1, 2])
            let h1 = try await lab.start(on: 1, MulticastConfiguration(interface: "v0"))
            let h2 = try await lab.start(
                on: 2, MulticastConfiguration(peers: [UnicastPeer(address: "10.77.0.11", port: 47788)]))
            #expect(h1.status.path(.multicast)?.state == .down(reason: "v0 has no MULTICAST flag"))
            #expect(h2.status.path(.multicast)?.isUp == false)
            let atH1 = DatagramCollector.collecting(h1, accepting: true)
            let atH2 = DatagramCollector.collecting(h2, accepting: true)

            // h1 names nobody: it cannot reach h2 until h2 is heard.
            h1.send(Array("too early".utf8))
            await h1.drain()
            #expect(h1.statistics.unicastSent == 0)
            h2.send(Array("hello h1".utf8))
            #expect(await atH1.waitUntil { $0.map(\.bytes) == [Array("hello h1".utf8)] })
            let first = await atH1.datagrams[0]
            #expect(first.path == .unicast && first.source == "10.77.0.12:47788")
            // h1 accepted it: h2 is now a peer of h1's, answered by unicast.
            #expect(try await waitUntil { h1.statistics.peersLearnt == 1 })
            h1.send(Array("hello h2".utf8))
            #expect(await atH2.waitUntil { $0.map(\.bytes) == [Array("hello h2".utf8)] })
            #expect(await atH2.datagrams.first?.source == "10.77.0.11:47788")
            #expect(h1.status.path(.unicast)?.detail == "to 0 listed peers, 1 learnt peer")
        }
    }

    @Test("A datagram that is not accepted teaches no peer")
    func onlyAcceptedDatagramsTeach() async throws {
        try await NetLab.withLab(hosts: 2) { lab in
            try Self.withoutMulticast(lab, hosts: [1, 2])
            let h1 = try await lab.start(on: 1, MulticastConfiguration(interface: "v0"))
            let h2 = try await lab.start(
                on: 2, MulticastConfiguration(peers: [UnicastPeer(address: "10.77.0.11", port: 47788)]))
            let atH1 = DatagramCollector.collecting(h1, accepting: false)
            let atH2 = DatagramCollector.collecting(h2)
            h2.send(Array("forged".utf8))
            #expect(await atH1.waitUntil { $0.count == 1 })
            h1.send(Array("answer".utf8))
            // h1's send reached the wire (counted as sent on no path): nothing reaches h2.
            h2.send(Array("second".utf8))
            #expect(await atH1.waitUntil { $0.count == 2 })
            #expect(h1.statistics.peersLearnt == 0)
            #expect(h1.statistics.unicastSent == 0)
            #expect(await atH2.datagrams.isEmpty)
        }
    }

    @Test("Multicast dropped on output by the firewall: the send error costs multicast only, unicast goes on")
    func outputFirewallCostsMulticastOnly() async throws {
        guard NetLab.hasNFT else { return }  // prints why it skips
        try await NetLab.withLab(hosts: 2) { lab in
            try lab.exec(host: 1, "nft", "add", "table", "inet", "lab")
            try lab.exec(
                host: 1, "nft", "add", "chain", "inet", "lab", "out", "{ type filter hook output priority 0; }")
            try lab.exec(host: 1, "nft", "add", "rule", "inet", "lab", "out", "ip", "daddr", "224.0.0.0/4", "drop")
            let h1 = try await lab.start(
                on: 1, MulticastConfiguration(peers: [UnicastPeer(address: "10.77.0.12", port: 47788)]))
            let h2 = try await lab.start(on: 2)
            let atH1 = DatagramCollector.collecting(h1, accepting: true)
            let atH2 = DatagramCollector.collecting(h2, accepting: true)

            for index in 1...5 { h1.send([UInt8(index)]) }
            #expect(await atH2.waitUntil { $0.map(\.bytes) == [[1], [2], [3], [4], [5]] })
            #expect(await atH2.datagrams.allSatisfy { $0.path == .unicast })
            #expect(try await waitUntil { h1.status.path(.multicast)?.state == .down(reason: "a firewall refuses it") })
            #expect(h1.status.warning == "multicast unavailable (a firewall refuses it): unicast only")
            #expect(await atH1.failures.isEmpty, "a multicast send error is a status, not a failed send")
            // Still open, still both ways: h2 answers by multicast, which h1's input lets in.
            h2.send(Array("back".utf8))
            #expect(await atH1.waitUntil { $0.map(\.bytes).contains(Array("back".utf8)) })
            h1.send([6])
            #expect(await atH2.waitUntil { $0.map(\.bytes).last == [6] })
        }
    }

    @Test("The address changes mid-session: the transport stays up and multicasts from the new one")
    func followsAnAddressChange() async throws {
        try await NetLab.withLab(hosts: 2) { lab in
            let h1 = try await lab.start(on: 1, MulticastConfiguration(interface: "v0"))
            let h2 = try await lab.start(on: 2)
            let atH2 = DatagramCollector.collecting(h2)
            let statuses = StatusLog()
            h1.start(TransportHandler(receive: { _ in }, statusChanged: { statuses.append($0) }))
            h1.send(Array("before".utf8))
            #expect(await atH2.waitUntil { $0.map(\.source) == ["10.77.0.11:47788"] })

            // A new lease: the new address first, then the old one goes (kept by promotion,
            // as a DHCP client's renumbering leaves it).
            try lab.exec(host: 1, "sysctl", "-qw", "net.ipv4.conf.v0.promote_secondaries=1")
            try lab.exec(host: 1, "ip", "addr", "add", "10.77.0.21/24", "dev", "v0")
            try lab.exec(host: 1, "ip", "addr", "del", "10.77.0.11/24", "dev", "v0")
            try lab.exec(host: 1, "ip", "route", "replace", "224.0.0.0/4", "dev", "v0")
            // Sending until one arrives from the new address: the transport never went offline.
            var arrived = false
            for index in 0..<100 where !arrived {
                h1.send([UInt8(index)])
                arrived = await atH2.waitUntil(within: .milliseconds(100)) {
                    $0.contains { $0.source == "10.77.0.21:47788" }
                }
            }
            #expect(arrived)
            #expect(h1.status.problems.isEmpty)
            // The change is reported (and so logged), naming the new address.
            #expect(statuses.all.contains { $0.path(.multicast)?.detail == "239.255.77.88:47788 on v0 (10.77.0.21)" })
        }
    }
}

/// Statuses a transport reported, in order.
final class StatusLog: Sendable {
    private let list = Mutex<[TransportStatus]>([])
    func append(_ status: TransportStatus) { list.withLock { $0.append(status) } }
    var all: [TransportStatus] { list.withLock { $0 } }
}
