import Foundation
import Handoff
import Synchronization
import Testing
@testable import HandoffMulticast

/// Every test here sends datagrams only inside a network namespace it made itself.
@Suite(
    "MulticastTransport in network-namespace labs",
    .serialized,
    .enabled(if: NetLab.isUsable, "needs root and working `ip netns` (the reason is printed)"),
    .timeLimit(.minutes(1))
)
struct MulticastTransportTests {
    /// Bytes that are not all alike, so a cut or shifted datagram cannot compare equal.
    static func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test("Two transports on one host share the port; both get what either sends, 60,000 bytes intact")
    func twoTransportsOnOneHost() async throws {
        try await NetLab.withSingleHostLab { lab in
            let a = try await lab.start(on: 1)
            let b = try await lab.start(on: 1)
            #expect(a.endpointDescription == "239.255.77.88:47788 on lo")
            let fromA = DatagramCollector.collecting(a)
            let fromB = DatagramCollector.collecting(b)

            let hello = Array("hello".utf8)
            a.send(hello)
            #expect(await fromA.waitUntil { $0.map(\.bytes) == [hello] })
            #expect(await fromB.waitUntil { $0.map(\.bytes) == [hello] })

            let large = Self.pattern(60_000, seed: 7)
            b.send(large)
            #expect(await fromA.waitUntil { $0.map(\.bytes) == [hello, large] })
            #expect(await fromB.waitUntil { $0.map(\.bytes) == [hello, large] })

            #expect(await fromB.datagrams.first?.source == "127.0.0.1:47788")
            #expect(a.sentCount == 1 && b.sentCount == 1)
            #expect(a.receivedCount == 2 && b.receivedCount == 2)
        }
    }

    @Test("The largest UDP datagram goes; one byte more is refused; sends go out in order up to close, and nothing after")
    func limitsOrderAndClose() async throws {
        try await NetLab.withSingleHostLab { lab in
            let sender = try await lab.start(on: 1)
            let listener = try await lab.start(on: 1)
            let heard = DatagramCollector.collecting(listener)
            let mine = DatagramCollector.collecting(sender)

            let largest = Self.pattern(MulticastTransport.maximumDatagramSize, seed: 1)
            sender.send(largest)
            #expect(await heard.waitUntil { $0.map(\.bytes) == [largest] })
            sender.send(Self.pattern(65_508, seed: 2))
            #expect(await mine.waitForFailures(1, within: .milliseconds(500)))
            #expect(await mine.failures == [.datagramTooLarge(bytes: 65_508, limit: 65_507)])
            #expect(sender.sentCount == 1)

            // Sent without waiting, in call order, the last one just before close.
            let sent = (0..<50).map { Self.pattern(100 + $0, seed: UInt8($0)) }
            for bytes in sent { sender.send(bytes) }
            await sender.close()
            #expect(await heard.waitUntil { $0.map(\.bytes) == [largest] + sent })
            #expect(sender.sentCount == 51)

            sender.send([1, 2, 3])  // closed: nothing leaves
            await sender.close()  // a second close does nothing
            #expect(sender.sentCount == 51)
            #expect(listener.receivedCount == 51, "\(listener.statistics)")
            await listener.close()
        }
    }

    @Test("A port held without SO_REUSEADDR is a bindFailed error naming the port")
    func portHeldByAnotherProgram() async throws {
        try await NetLab.withSingleHostLab { lab in
            let namespace = lab.namespace(ofHost: 1)
            let holder = try await onDedicatedThread { () throws -> Int32 in
                try NetLab.enter(namespace: namespace)  // this thread ends with the closure
                let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = UInt16(47788).bigEndian
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                return bound == 0 ? descriptor : -1
            }
            #expect(holder >= 0)
            defer { close(holder) }
            do throws(MulticastError) {
                _ = try await lab.start(on: 1)
                Issue.record("start succeeded while the port was held")
            } catch {
                guard case .bindFailed(let port, let reason) = error else {
                    Issue.record("expected bindFailed, got \(error)")
                    return
                }
                #expect(port == 47788)
                #expect(reason.contains("Address already in use"))
                #expect(error.description.contains("--port"))
            }
        }
    }

    @Test("A socket gets only the group it joined, not others joined on the host (IP_MULTICAST_ALL off)")
    func onlyTheJoinedGroup() async throws {
        try await NetLab.withSingleHostLab { lab in
            let listener = try await lab.start(on: 1, MulticastConfiguration(group: "239.255.77.88"))
            let other = try await lab.start(on: 1, MulticastConfiguration(group: "239.255.77.89"))
            let sameGroup = try await lab.start(on: 1, MulticastConfiguration(group: "239.255.77.88"))
            let heard = DatagramCollector.collecting(listener)
            let otherHeard = DatagramCollector.collecting(other)

            // Once `other` has its own copy, the kernel has delivered that datagram to every
            // socket that takes it; the listener's queue is in order, so it would come first.
            other.send(Array("other group".utf8))
            #expect(await otherHeard.waitUntil { $0.count == 1 })
            sameGroup.send(Array("our group".utf8))
            #expect(await heard.waitUntil { $0.count == 1 })
            #expect(await heard.datagrams.map(\.bytes) == [Array("our group".utf8)])
        }
    }

    @Test("Across a bridge: a transport in h1 sends, a transport in h2 receives, 60,000 bytes intact")
    func twoHostsOnABridge() async throws {
        try await NetLab.withLab(hosts: 2) { lab in
            let h1 = try await lab.start(on: 1)
            let h2 = try await lab.start(on: 2)
            #expect(h1.endpointDescription == "239.255.77.88:47788 on v0")
            #expect(h2.interfaceName == "v0")
            let atH2 = DatagramCollector.collecting(h2)

            let small = Array("from h1".utf8)
            let large = Self.pattern(60_000, seed: 3)  // fragmented on the 1500-byte veth
            h1.send(small)
            h1.send(large)
            #expect(await atH2.waitUntil { $0.map(\.bytes) == [small, large] })
            #expect(await atH2.datagrams.first?.source == "10.77.0.11:47788")
        }
    }

    @Test("With 100% loss on h2, h2 gets nothing while h1's own copy arrives; removing the loss restores it")
    func lossOnOneHost() async throws {
        guard NetLab.hasNFT else { return }  // prints why it skips
        try await NetLab.withLab(hosts: 2) { lab in
            let h1 = try await lab.start(on: 1)
            let h2 = try await lab.start(on: 2)
            let atH1 = DatagramCollector.collecting(h1)
            let atH2 = DatagramCollector.collecting(h2)
            try lab.setLoss(host: 2, percent: 100)

            for index in 1...3 {
                h1.send([UInt8(index)])
            }
            #expect(await atH1.waitUntil { $0.map(\.bytes) == [[1], [2], [3]] })
            // The rule's counter proves the three datagrams reached h2 and were dropped there.
            #expect(try await waitUntil { try lab.drops(host: 2) >= 3 })
            #expect(await atH2.datagrams.isEmpty)
            #expect(h2.receivedCount == 0)

            try lab.setLoss(host: 2, percent: 0)
            h1.send([4])
            #expect(await atH2.waitUntil { $0.map(\.bytes) == [[4]] })
        }
    }
}

/// Polls a condition that nothing can announce (an nftables counter) until it holds or `timeout` passes.
func waitUntil(
    within timeout: Duration = .seconds(5),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))  // wait-ok: nft counters cannot signal; polled until the deadline
    }
    return try await condition()
}
