import Foundation
import Handoff
import Testing

@testable import HandoffRelay
@testable import HandoffWire

/// A private mosquitto speaking TLS on 127.0.0.1, with a CA made for the test by openssl.
@Suite(
    "The relay over TLS",
    .serialized,
    .enabled(if: Broker.isUsable && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs mosquitto and openssl"),
    .timeLimit(.minutes(1))
)
struct RelayTLSTests {
    static let key = GroupKey.random()

    @Test("mqtts:// with --relay-ca connects and carries datagrams; without the CA the path is down with a reason")
    func tls() async throws {
        let broker = try await Broker.start(tls: true)
        defer { broker.stop() }
        func peer(caFile: String?) throws -> RelayPeer {
            try RelayPeer(configuration: RelayConfiguration(broker.url, caFile: caFile), key: Self.key)
        }
        let a = try peer(caFile: broker.caFile)
        let b = try peer(caFile: broker.caFile)
        #expect(await a.statuses.wait { $0.last == .up })
        #expect(await b.statuses.wait { $0.last == .up })
        let datagram = a.datagram(.query, sequence: 1)
        a.transport.send(datagram)
        #expect(await b.heardBytes(datagram))

        // The system's certificates do not trust the test CA: the relay says so and stays down.
        let untrusting = try peer(caFile: nil)
        #expect(await untrusting.statuses.wait { $0.contains { if case .down = $0 { true } else { false } } })
        #expect(!untrusting.statuses.items.contains(.up))
        print("HandoffRelayTests: without the CA: \(untrusting.statuses.items)")
        for peer in [a, b, untrusting] { await peer.transport.close() }
    }

    @Test("A CA file that cannot be read is refused when the relay is made, naming it")
    func unreadableCA() throws {
        let configuration = try RelayConfiguration("mqtts://127.0.0.1:8883", caFile: "/nonexistent/ca.pem")
        #expect {
            try RelayTransport(configuration: configuration, groupKey: Self.key, senderID: .random())
        } throws: { error in
            guard case .tls(let reason) = error as? RelayError else { return false }
            return reason.contains("/nonexistent/ca.pem") && reason.contains("--relay-ca")
        }
    }
}
