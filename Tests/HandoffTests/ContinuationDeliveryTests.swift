import Foundation
import HandoffTesting
import Synchronization
import Testing
@testable import Handoff
@testable import HandoffWire

/// `deliverMessages` on the in-memory streams, whose pipe has no thread of its own: the
/// messages that waited before the call first, from the caller, then each as it arrives, and a
/// dropped connection handed on once as the error that ended the stream.
@MainActor
@Suite("Continuation streams handed on as they arrive (in memory)")
struct ContinuationDeliveryTests {
    final class Pushed: Sendable {
        let seen = Mutex<(messages: [[UInt8]], ends: [String])>(([], []))
        func take(_ result: Result<[UInt8]?, HandoffError>) {
            seen.withLock { seen in
                switch result {
                case .success(let message?): seen.messages.append(message)
                case .success(nil): seen.ends.append("closed")
                case .failure(let error): seen.ends.append("\(error)")
                }
            }
        }
        var messages: [[UInt8]] { seen.withLock { $0.messages } }
        var ends: [String] { seen.withLock { $0.ends } }
    }

    @Test("What waited before the call comes first, then the rest in order; a dropped connection ends it once, as lost; no executor")
    func waitingThenArriving() async throws {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let taker = StreamTaker()
        let (a, b, server, _, entry) = try await InMemoryContinuationStreamTests.setUp(network, streams, taker: taker)
        let opened = try await b.openContinuationStream(to: entry)
        #expect(await waitUntil { taker.streams.count == 1 })
        let accepted = try #require(taker.streams.first)
        #expect(accepted.executor == nil, "the in-memory pipe has no thread of its own")

        let early: [[UInt8]] = [[1], Array(repeating: 0x41, count: 100_000)]
        for message in early { try await opened.send(message) }
        // Both whole at Alice's end, not taken: the machine holds them.
        #expect(await waitUntil { accepted.core.withLock { $0.machine.waitingMessages } == early.count })
        let pushed = Pushed()
        accepted.deliverMessages { pushed.take($0) }
        #expect(pushed.messages.elementsEqual(early), "handed on from the call itself: \(pushed.messages.map(\.count))")
        let late: [[UInt8]] = [[], [2, 3]]
        for message in late { try await opened.send(message) }
        #expect(await waitUntil { pushed.messages.count == early.count + late.count })
        #expect(pushed.messages.elementsEqual(early + late), "\(pushed.messages.map(\.count))")

        server.dropConnections()
        #expect(await waitUntil { !pushed.ends.isEmpty })
        await a.shutdown()
        await b.shutdown()
        #expect(pushed.ends.count == 1)
        #expect(pushed.ends.first?.contains("lost") == true, "\(pushed.ends)")
    }
}
