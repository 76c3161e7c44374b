import Handoff
import NIOCore
import NIOEmbedded
import Testing
@testable import HandoffMulticast
@testable import HandoffWire

/// The server's channel handler on an `EmbeddedChannel`, in the event loop's virtual time.
@Suite("State server handler")
struct StateServerHandlerTests {
    static let state = StreamTest.state(200_000)

    struct Harness {
        let loop = EmbeddedEventLoop()
        let channel: EmbeddedChannel
        let events = TCPStateServer.Events(limit: 8)
        let request: StateRequest

        init() throws {
            let (shelf, request) = StreamTest.shelf(StateServerHandlerTests.state)
            self.request = request
            let handler = StateServerHandler(
                machine: StateServerConnection(identity: StreamTest.server, trust: StreamTest.trust, shelf: shelf), limits: .init(), events: events, door: shelf.continuationDoor)
            channel = EmbeddedChannel(handler: handler, loop: loop)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        }

        func send(_ bytes: [UInt8]) throws {
            try channel.writeInbound(channel.allocator.buffer(bytes: bytes))
        }

        /// Everything the server wrote since the last call.
        func written() throws -> [UInt8] {
            var out: [UInt8] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { out += buffer.readableBytesView }
            return out
        }

        /// A client whose ClientHello went out and whose ServerHello came back: it holds its proof and GET.
        func handshake() throws -> (StateClientConnection, proofAndGet: [UInt8]) {
            var client = StreamTest.clientMachine(request)
            try send(client.start())
            let outputs = client.receive(try written())
            guard case .write(let proofAndGet) = outputs.first else { throw HarnessError.noServerHello }
            return (client, proofAndGet)
        }
    }

    enum HarnessError: Error { case noServerHello }

    @Test("A client that says nothing is closed at 1 s, not before")
    func silentClient() throws {
        let harness = try Harness()
        harness.loop.advanceTime(by: .milliseconds(999))
        #expect(harness.channel.isActive)
        harness.loop.advanceTime(by: .milliseconds(1))
        #expect(!harness.channel.isActive)
        #expect(harness.events.statistics.handshakeTimeouts == 1)
        #expect(try harness.written().isEmpty)
    }

    @Test("A client trickling its hello one byte every 900 ms is still closed at 1 s")
    func slowloris() throws {
        let harness = try Harness()
        let hello = StreamTest.clientHello()
        try harness.send([hello[0]])
        harness.loop.advanceTime(by: .milliseconds(900))
        try harness.send([hello[1]])
        #expect(harness.channel.isActive)
        harness.loop.advanceTime(by: .milliseconds(100))
        #expect(!harness.channel.isActive)
        #expect(try harness.written().isEmpty)
        #expect(harness.events.statistics.handshakeTimeouts == 1)
    }

    @Test("A handshake finished after 1 s is too late even when every byte came in time")
    func proofTooLate() throws {
        let harness = try Harness()
        let (_, proofAndGet) = try harness.handshake()
        harness.loop.advanceTime(by: .milliseconds(1000))
        #expect(!harness.channel.isActive)
        try? harness.send(proofAndGet)
        #expect(try harness.written().isEmpty, "no START, no DATA")
        #expect(harness.events.statistics.handshakeTimeouts == 1)
    }

    @Test("A GET answered in time streams the whole state, then the server closes; the deadline no longer applies")
    func wholeExchange() throws {
        let harness = try Harness()
        var (client, proofAndGet) = try harness.handshake()
        harness.loop.advanceTime(by: .milliseconds(990))
        try harness.send(proofAndGet)
        var data: [UInt8] = []
        var finished = false
        for output in client.receive(try harness.written()) {
            if case .data(let body) = output { data += body }
            if case .finished = output { finished = true }
        }
        #expect(finished && data == Self.state)
        #expect(!harness.channel.isActive, "the server closes once the last DATA frame is written")
        harness.loop.advanceTime(by: .seconds(2))
        #expect(harness.events.statistics == .init(accepted: 0, finished: 1))
    }

    @Test("DATA is sealed only while the channel is writable")
    func backPressure() throws {
        let harness = try Harness()
        let (_, proofAndGet) = try harness.handshake()
        harness.channel.isWritable = false
        try harness.send(proofAndGet)
        #expect(try harness.written().count == 4 + 17 + 16, "START only")
        harness.channel.isWritable = true
        harness.channel.pipeline.fireChannelWritabilityChanged()
        // Three full DATA frames and one of the last 3,395 bytes.
        #expect(try harness.written().count == 3 * (4 + 65_536 + 16) + (4 + 1 + 3_395 + 16))
    }

    @Test("A wrong proof closes the connection without another byte")
    func wrongProof() throws {
        let harness = try Harness()
        var (_, proofAndGet) = try harness.handshake()
        proofAndGet[0] ^= 1
        try harness.send(proofAndGet)
        #expect(!harness.channel.isActive)
        #expect(try harness.written().isEmpty)
        #expect(harness.events.statistics.refusedByProtocol == 1)
    }
}
