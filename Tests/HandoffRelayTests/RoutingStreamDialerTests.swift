import Handoff
import HandoffRelay
import Testing
import HandoffWire

@Suite("Routing state-stream connections")
struct RoutingStreamDialerTests {
    @Test("A relay host goes to the relay dialer, every other host to the direct one")
    func routing() async throws {
        let dialer = RoutingStreamDialer(direct: Refusing(name: "tcp"), relay: Refusing(name: "relay"))
        await #expect(throws: StreamFailure.connectionLost("tcp")) { try await dialer.connect(host: "10.0.0.2", port: 1) }
        await #expect(throws: StreamFailure.connectionLost("relay")) {
            try await dialer.connect(host: "relay:0123456789abcdef", port: 1)
        }
        let without = RoutingStreamDialer(direct: Refusing(name: "tcp"), relay: nil)
        await #expect(throws: StreamFailure.self) { try await without.connect(host: "relay:0123456789abcdef", port: 1) }
    }

    struct Refusing: StreamDialer {
        let name: String
        func connect(host: String, port: Int) async throws -> any StreamConnection { throw StreamFailure.connectionLost(name) }
    }
}
