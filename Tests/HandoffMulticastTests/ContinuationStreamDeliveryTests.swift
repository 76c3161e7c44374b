import Foundation
import Handoff
import HandoffTesting
import HandoffWire
import NIOCore
import Synchronization
import Testing
@testable import HandoffMulticast

/// `deliverMessages` over TCP on loopback: what arrived before the call and after it, in order
/// and whole, handed on from the connection's event loop (`executor`), then the end once.
@Suite("Continuation streams handed on where they are read (TCP on loopback)", .serialized, .timeLimit(.minutes(2)))
@MainActor
struct ContinuationStreamDeliveryTests {
    /// What a pusher was handed, and whether each call came on the stream's event loop.
    final class Delivered: Sendable {
        struct Seen { var messages: [[UInt8]] = []; var end: String?; var ends = 0; var offLoop = 0 }
        let seen = Mutex(Seen())
        func take(_ result: Result<[UInt8]?, HandoffError>, onLoop: Bool) {
            seen.withLock { seen in
                if !onLoop { seen.offLoop += 1 }
                switch result {
                case .success(let message?): seen.messages.append(message)
                case .success(nil): seen.end = "closed"; seen.ends += 1
                case .failure(let error): seen.end = "\(error)"; seen.ends += 1
                }
            }
        }
        var messages: [[UInt8]] { seen.withLock { $0.messages } }
        var end: String? { seen.withLock { $0.end } }
    }

    @Test("Messages sent before and after the call arrive whole and in order, from the connection's event loop; the other end's close is handed on once")
    func deliveredInOrder() async throws {
        let (lab, _, opened, accepted, _) = try await ContinuationStreamTCPTests.openedPair()
        let loop = try #require(accepted.executor as? any EventLoop, "a TCP connection's stream has its event loop as executor")

        let early: [[UInt8]] = [Array("before".utf8), StreamTest.state(300_000, seed: 3)]
        for message in early { try await opened.send(message) }
        // Sent before the call: they arrive before it or after it, and come first either way.
        let delivered = Delivered()
        accepted.deliverMessages { result in delivered.take(result, onLoop: loop.inEventLoop) }
        let late: [[UInt8]] = [[], StreamTest.state(70_000, seed: 4), [9]]
        for message in late { try await opened.send(message) }
        #expect(await waitUntil(timeout: .seconds(60)) { delivered.messages.count == early.count + late.count })
        #expect(delivered.messages.elementsEqual(early + late), "\(delivered.messages.map(\.count))")

        await opened.close()
        #expect(await waitUntil(timeout: .seconds(30)) { delivered.end != nil })
        let seen = delivered.seen.withLock { $0 }
        #expect(seen.end == "closed" && seen.ends == 1)
        // Only what waited before the call may come from the caller's thread.
        #expect(seen.offLoop <= early.count)
        await lab.shutdown()
    }
}
