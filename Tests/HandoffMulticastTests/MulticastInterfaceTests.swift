import Handoff
import Testing
@testable import HandoffMulticast

/// Choosing the interface by name; every lab here is made by the test itself.
@Suite(
    "MulticastTransport on a named interface",
    .serialized,
    .enabled(if: NetLab.isUsable, "needs root and working `ip netns` (the reason is printed)"),
    .timeLimit(.minutes(1))
)
struct MulticastInterfaceTests {
    @Test("An unknown interface is an error that says what exists; one without an address or MULTICAST flag leaves unicast running")
    func unusableInterfaces() async throws {
        try await NetLab.withLab(hosts: 1) { lab in
            try lab.addInterface(host: 1, name: "x1", cidr: "10.78.0.1/24")
            try lab.exec(host: 1, "ip", "link", "add", "d0", "type", "veth", "peer", "name", "d1")

            await #expect(throws: MulticastError.interfaceNotFound(name: "nope0", available: ["lo", "v0", "x1"])) {
                try await lab.start(on: 1, MulticastConfiguration(interface: "nope0"))
            }
            let noAddress = try await lab.start(on: 1, MulticastConfiguration(interface: "d0"))
            #expect(noAddress.status.path(.multicast)?.state == .down(reason: "d0 has no IPv4 address"))
            #expect(noAddress.status.path(.unicast)?.isUp == true)
            await noAddress.close()
            // `lo` has no MULTICAST flag in a fresh namespace.
            let noFlag = try await lab.start(on: 1, MulticastConfiguration(interface: "lo"))
            #expect(noFlag.status.path(.multicast)?.state == .down(reason: "lo has no MULTICAST flag"))
            #expect(noFlag.status.warning == "multicast unavailable (lo has no MULTICAST flag): unicast only")
            await noFlag.close()
            let fine = try await lab.start(on: 1, MulticastConfiguration(interface: "x1"))
            #expect(fine.endpointDescription == "239.255.77.88:47788 on x1")
            #expect(fine.status.problems.isEmpty)
        }
    }

    @Test("A named interface is the one sent on: x1's datagram stays on x1, v0's reaches h2")
    func sendsOnTheNamedInterface() async throws {
        try await NetLab.withLab(hosts: 2) { lab in
            try lab.addInterface(host: 1, name: "x1", cidr: "10.78.0.1/24")
            let onX1 = try await lab.start(on: 1, MulticastConfiguration(interface: "x1"))
            let onV0 = try await lab.start(on: 1, MulticastConfiguration(interface: "v0"))
            let h2 = try await lab.start(on: 2, MulticastConfiguration(interface: "v0"))
            let atX1 = DatagramCollector.collecting(onX1)
            let atV0 = DatagramCollector.collecting(onV0)
            let atH2 = DatagramCollector.collecting(h2)

            // The loopback copy's source address shows which interface the datagram left by.
            onX1.send(Array("via x1".utf8))
            #expect(await atX1.waitUntil { $0.map(\.source) == ["10.78.0.1:47788"] })
            onV0.send(Array("via v0".utf8))
            #expect(await atV0.waitUntil { $0.map(\.source) == ["10.77.0.11:47788"] })
            #expect(await atH2.waitUntil { $0.count == 1 })

            // x1's datagram was sent first; had it reached h2 or the v0 socket, it would be there, first.
            #expect(await atH2.datagrams.map(\.bytes) == [Array("via v0".utf8)])
            #expect(await atV0.datagrams.map(\.bytes) == [Array("via v0".utf8)])
            #expect(await atX1.datagrams.map(\.bytes) == [Array("via x1".utf8)])
        }
    }

    @Test("A change is heard: an address added makes the transport look again, not 30 s later; so does one after its subscription closed")
    func hearsInterfaceChanges() async throws {
        try await NetLab.withLab(hosts: 2) { lab in
            let h1 = try await lab.start(on: 1)
            #expect(await h1.hearsInterfaceChanges())  // subscribed before the start returns
            // Nothing is wrong, so no retry is due: the next look without a change heard is 30 s away.
            #expect(h1.status.problems.isEmpty)
            let before = await h1.interfaceLooks()
            // Another host's change is not this namespace's; then this one's.
            try lab.exec(host: 2, "ip", "addr", "add", "10.77.0.32/24", "dev", "v0")
            try lab.exec(host: 1, "ip", "addr", "add", "10.77.0.31/24", "dev", "v0")
            #expect(try await waitUntil(within: .seconds(10)) { await h1.interfaceLooks() > before })

            // A subscription that closes (as an overrun's read error closes it) is made again at
            // a look that comes soon, and the next change is heard too.
            await h1.dropInterfaceEvents()
            #expect(try await waitUntil(within: .seconds(10)) { await h1.hearsInterfaceChanges() })
            let again = await h1.interfaceLooks()
            try lab.exec(host: 1, "ip", "addr", "del", "10.77.0.31/24", "dev", "v0")
            #expect(try await waitUntil(within: .seconds(10)) { await h1.interfaceLooks() > again })
            #expect(h1.status.problems.isEmpty)
        }
    }

    @Test("With no multicast route the transport starts on unicast, and joins once a route appears")
    func joinWithoutARoute() async throws {
        try await NetLab.withLab(hosts: 2) { lab in
            try lab.exec(host: 1, "ip", "route", "del", "224.0.0.0/4")
            let h1 = try await lab.start(on: 1)
            #expect(h1.status.path(.multicast)?.state == .down(reason: "no multicast route"))
            let atH1 = DatagramCollector.collecting(h1)
            let h2 = try await lab.start(on: 2)

            // The interfaces are watched: a route added later is joined without a restart.
            try lab.exec(host: 1, "ip", "route", "add", "224.0.0.0/4", "dev", "v0")
            #expect(try await waitUntil(within: .seconds(10)) { h1.status.problems.isEmpty })
            h2.send(Array("after the route".utf8))
            #expect(await atH1.waitUntil { $0.map(\.bytes).contains(Array("after the route".utf8)) })
            #expect(await atH1.datagrams.last?.path == .multicast)
            // Naming the interface needs no route.
            let named = try await lab.start(on: 1, MulticastConfiguration(interface: "v0"))
            #expect(named.interfaceName == "v0")
        }
    }
}
