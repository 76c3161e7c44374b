import Synchronization
import Testing
@testable import Handoff

/// `TransportSet` and `TransportStatus`: several paths as one transport, and what is said about them.
@Suite("Transport set and status")
struct TransportSetTests {
    /// A transport that records what it sent and lets the test play its network.
    final class Fake: ActivityTransport {
        let name: String
        let sent = Mutex<[[UInt8]]>([])
        let handler = Mutex<TransportHandler?>(nil)
        let paths: Mutex<[TransportStatus.Path]>
        init(_ name: String, paths: [TransportStatus.Path]) {
            self.name = name
            self.paths = Mutex(paths)
        }
        func start(_ handler: TransportHandler) { self.handler.withLock { $0 = handler } }
        func send(_ bytes: [UInt8]) { sent.withLock { $0.append(bytes) } }
        func close() async {}
        var endpointDescription: String { name }
        var status: TransportStatus { TransportStatus(paths: paths.withLock { $0 }) }
        func change(_ new: [TransportStatus.Path]) {
            paths.withLock { $0 = new }
            handler.withLock { $0 }?.statusChanged(status)
        }
    }

    static let multicastUp = TransportStatus.Path(kind: .multicast, state: .up, detail: "239.255.77.88:47788 on eth0")
    static let unicastUp = TransportStatus.Path(kind: .unicast, state: .up, detail: "to 1 listed peer, 0 learnt peers")
    static let relayUp = TransportStatus.Path(kind: .relay, state: .up, detail: "mqtt://broker:1883")

    @Test("Every datagram goes out on each member; what arrives on any reaches the handler, verdict and all")
    func fansOutAndIn() {
        let lan = Fake("lan", paths: [Self.multicastUp, Self.unicastUp])
        let relay = Fake("relay", paths: [Self.relayUp])
        let set = TransportSet([lan, relay])
        let heard = Mutex<[DatagramPath]>([])
        let statuses = Mutex<[TransportStatus]>([])
        set.start(
            TransportHandler(
                deliver: { datagram in
                    heard.withLock { $0.append(datagram.path) }
                    return datagram.path == .relay ? .accepted : .notAccepted
                },
                statusChanged: { status in statuses.withLock { $0.append(status) } }))
        set.send([1, 2, 3])
        #expect(lan.sent.withLock { $0 } == [[1, 2, 3]] && relay.sent.withLock { $0 } == [[1, 2, 3]])
        #expect(lan.handler.withLock { $0 }?.deliver(ReceivedDatagram(bytes: [9], path: .multicast)) == .notAccepted)
        #expect(relay.handler.withLock { $0 }?.deliver(ReceivedDatagram(bytes: [9], path: .relay)) == .accepted)
        #expect(heard.withLock { $0 } == [.multicast, .relay])
        #expect(set.endpointDescription == "lan + relay")
        #expect(set.status.paths == [Self.multicastUp, Self.unicastUp, Self.relayUp])

        // A member's change is reported as the whole set's status.
        relay.change([TransportStatus.Path(kind: .relay, state: .connecting, detail: "mqtt://broker:1883")])
        #expect(statuses.withLock { $0 }.map(\.warning) == ["relay connecting: multicast and unicast only"])
    }

    @Test("The warning names what does not work and what is left; nil when all works")
    func warnings() {
        let down = TransportStatus.Path(
            kind: .multicast, state: .down(reason: "wg0 has no MULTICAST flag"), detail: "239.255.77.88:47788 on wg0")
        #expect(TransportStatus(paths: [Self.multicastUp, Self.unicastUp]).warning == nil)
        #expect(TransportStatus(paths: [down, Self.unicastUp]).warning
            == "multicast unavailable (wg0 has no MULTICAST flag): unicast only")
        #expect(TransportStatus(paths: [down]).warning == "multicast unavailable (wg0 has no MULTICAST flag): no path works")
        #expect(down.description == "multicast 239.255.77.88:47788 on wg0 unavailable: wg0 has no MULTICAST flag")
        #expect(TransportStatus().warning == nil)
    }
}
