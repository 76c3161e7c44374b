import Handoff
import HandoffTesting
import HandoffWire
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HandoffPairing

/// Both ends of a pairing on this machine: the joiner reaches the sharer by `--peer` on
/// 127.0.0.1, or by HELLO multicast on the loopback interface (never on the LAN). Every side
/// has a time limit of its own, so every event stream ends, and each test with it.
@Suite("Pairing over SwiftNIO (127.0.0.1 and loopback multicast)", .timeLimit(.minutes(1)))
struct PairingSessionTests {
    static let key = GroupKey(bytes: (0..<32).map { UInt8($0) })!
    static let sharerIdentity = DeviceIdentity(seed: Array(0xc0..<0xe0).map(UInt8.init))!
    static let joinerIdentity = DeviceIdentity(seed: Array(0xe0..<0x100).map(UInt8.init))!
    static var sharerID: PublicIdentity { sharerIdentity.publicIdentity }
    static var joinerID: PublicIdentity { joinerIdentity.publicIdentity }

    /// The key a joiner stored, if any.
    final class Stored: Sendable {
        private let box = Mutex<GroupKey?>(nil)
        var key: GroupKey? { box.withLock { $0 } }
        func keep(_ key: GroupKey) { box.withLock { $0 = key } }
    }

    /// A port free for TCP on 127.0.0.1 just now (the pairing also binds UDP on it).
    /// A port for a pairing's TCP and UDP: from below the ephemeral range (`TestPorts`), so that no
    /// connection of a parallel test takes it between now and the pairing's listen.
    static func freePort() async throws -> Int { TestPorts.free() }

    static func sharer(port: Int, name: String = "sharer", timeout: Double = 60) -> PairingSession {
        PairingSession(
            role: .sharer(key), name: name, identity: sharerIdentity,
            settings: .init(port: port, group: "239.255.77.88", interface: "lo", timeout: timeout))
    }

    static func joiner(
        port: Int, peer: String?, timeout: Double = 60, stored: Stored? = nil
    ) -> PairingSession {
        PairingSession(
            role: .joiner, name: "joiner", identity: joinerIdentity,
            settings: .init(port: port, group: "239.255.77.88", interface: "lo", peer: peer, timeout: timeout)
        ) { key, _ in
            stored?.keep(key)
            return nil
        }
    }

    /// Every event of `session` until its stream ends, answering `yes` (when given) to the code.
    static func events(_ session: PairingSession, answering yes: Bool?) async -> [PairingEvent] {
        var seen: [PairingEvent] = []
        for await event in session.events {
            seen.append(event)
            if case .code = event, let yes { session.answer(yes) }
        }
        return seen
    }

    /// Whether `event` says paired with `name` and `peer`, whatever statements come with it.
    static func paired(_ event: PairingEvent?, _ name: String, _ peer: PublicIdentity) -> Bool {
        if case .paired(name, peer, _) = event { true } else { false }
    }

    static func code(_ events: [PairingEvent]) -> String? {
        for case .code(let code, _, _) in events { return code }
        return nil
    }

    @Test("--peer on 127.0.0.1: same code on both ends, two yeses hand the key over and both say paired")
    func pairsByPeer() async throws {
        let port = try await Self.freePort()
        let stored = Stored()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        let joiner = Self.joiner(port: port, peer: "127.0.0.1:\(port)", stored: stored)
        try await joiner.start()
        async let sharerEvents = Self.events(sharer, answering: true)
        let joinerEvents = await Self.events(joiner, answering: true)
        let sharerSaw = await sharerEvents
        #expect(Self.paired(sharerSaw.last, "joiner", Self.joinerID))
        #expect(Self.paired(joinerEvents.last, "sharer", Self.sharerID))
        // Each side keeps the introductions (docs/PROTOCOL.md, section 17, "Introductions").
        guard case .paired(_, _, let atJoiner) = joinerEvents.last, case .paired(_, _, let atSharer) = sharerSaw.last else {
            return
        }
        let introduceJoiner = StatementContent.introduce(identity: Self.joinerID, name: "joiner")
        let joinerKeeps = atJoiner.compactMap { try? Statement(parsing: $0) }
        #expect(joinerKeeps.map(\.content) == [introduceJoiner, .introduce(identity: Self.sharerID, name: "sharer")])
        #expect(joinerKeeps.map(\.by) == [Self.sharerID.deviceID.bytes, Self.joinerID.deviceID.bytes])
        #expect(atSharer == [atJoiner[0]])
        #expect(Self.code(sharerSaw) != nil && Self.code(sharerSaw) == Self.code(joinerEvents))
        #expect(stored.key == Self.key)
    }

    @Test("A joiner without --peer finds the sharer by its HELLO on loopback multicast and pairs")
    func pairsByHello() async throws {
        let port = try await Self.freePort()
        let stored = Stored()
        let joiner = Self.joiner(port: port, peer: nil, stored: stored)
        try await joiner.start()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        async let sharerEvents = Self.events(sharer, answering: true)
        let joinerEvents = await Self.events(joiner, answering: true)
        #expect(Self.paired(await sharerEvents.last, "joiner", Self.joinerID))
        #expect(Self.paired(joinerEvents.last, "sharer", Self.sharerID))
        // The host is the HELLO's source address: on loopback, whichever address the kernel gave it.
        guard case .found(let host, port) = joinerEvents.first else {
            Issue.record("the joiner did not say whom it found before the code: \(joinerEvents)")
            return
        }
        let address = try SocketAddress(ipAddress: host, port: 0)
        #expect(address.protocol == .inet, "\(host) is an IPv4 address")
        #expect(stored.key == Self.key)
    }

    @Test("A no on the joining side: ABORT 01 reaches the sharer, and no key is stored")
    func declined() async throws {
        let port = try await Self.freePort()
        let stored = Stored()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        let joiner = Self.joiner(port: port, peer: "127.0.0.1:\(port)", stored: stored)
        try await joiner.start()
        async let sharerEvents = Self.events(sharer, answering: true)
        let joinerEvents = await Self.events(joiner, answering: false)
        #expect(await sharerEvents.last == .failed(.declinedThere))
        #expect(joinerEvents.last == .failed(.declinedHere))
        #expect(stored.key == nil)
    }

    @Test("Nobody answers: the sharer's time limit ends it, and its ABORT 04 ends the joiner")
    func timeLimit() async throws {
        let port = try await Self.freePort()
        // The limit passes once both show the code, as the limit's timer would make it pass: a
        // limit of a few seconds in real time raced the joiner's connection on a loaded machine
        // (the sharer had closed its listener when the joiner came, "connection refused").
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        let joiner = Self.joiner(port: port, peer: "127.0.0.1:\(port)")
        try await joiner.start()
        var joinerEvents = joiner.events.makeAsyncIterator()
        guard case .code = await joinerEvents.next() else {
            Issue.record("the joiner showed no code")
            return
        }
        sharer.expire()
        #expect(await Self.events(sharer, answering: nil).last == .failed(.timedOut))
        var rest: [PairingEvent] = []
        while let event = await joinerEvents.next() { rest.append(event) }
        #expect(rest.last == .failed(.otherSideAborted(4)))
    }

    @Test("A second connection while one is open: the sharer ends with ABORT 02, and the first joiner hears it")
    func secondConnection() async throws {
        let port = try await Self.freePort()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        let first = Self.joiner(port: port, peer: "127.0.0.1:\(port)")
        try await first.start()
        var firstEvents = first.events.makeAsyncIterator()
        guard case .code = await firstEvents.next() else {
            Issue.record("the first joiner showed no code")
            return
        }
        let second = Self.joiner(port: port, peer: "127.0.0.1:\(port)")
        try? await second.start()
        let sharerSaw = await Self.events(sharer, answering: nil)
        #expect(sharerSaw.last == .failed(.anotherPairing(from: "127.0.0.1")))
        #expect(await firstEvents.next() == .failed(.otherSideAborted(2)))
        let secondSaw = await Self.events(second, answering: nil)
        #expect(!secondSaw.contains { if case .paired = $0 { true } else { false } })
    }

    @Test("--peer where nothing listens: start() says where and why")
    func unreachablePeer() async throws {
        // A TCP socket bound and never listening holds the port: nothing else in the test run can
        // take it in the meantime, and a connection to it is refused.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let joiner = Self.joiner(port: port, peer: "127.0.0.1:\(port)")
        await #expect(throws: PairingSetupError("Cannot reach `baton pair` at 127.0.0.1:\(port): Connection refused.")) {
            try await joiner.start()
        }
        #expect(await Self.events(joiner, answering: nil).isEmpty)
    }

    /// A TCP listener on 127.0.0.1 that never accepts, its queue full: a connection to it gets
    /// no answer (the kernel drops the SYN), as behind a firewall that drops the port. Filled
    /// until a connection of its own times out; close the channels after.
    static func unanswering(port: Int) async throws -> [any Channel] {
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 0)
            .serverChannelOption(.autoRead, value: false)
            .bind(host: "127.0.0.1", port: port).get()
        var channels: [any Channel] = [server]
        for _ in 0..<16 {
            do {
                channels.append(try await ClientBootstrap(group: group).connectTimeout(.milliseconds(300))
                    .connect(host: "127.0.0.1", port: port).get())
            } catch ChannelError.connectTimeout {
                return channels
            }
        }
        for channel in channels { try? await channel.close() }
        throw ChannelError.connectPending
    }

    @Test("--peer that does not answer: start() gives up at --timeout, saying where and that nothing answered")
    func unansweredPeer() async throws {
        let port = try await Self.freePort()
        let blackHole = try await Self.unanswering(port: port)
        defer { for channel in blackHole { channel.close(promise: nil) } }
        let joiner = Self.joiner(port: port, peer: "127.0.0.1:\(port)", timeout: 0.5)
        let started = ContinuousClock.now
        await #expect(throws: PairingSetupError("Cannot reach `baton pair` at 127.0.0.1:\(port): no answer within 0.5 s "
            + "(a firewall there may drop TCP \(port); `baton doctor` there checks).")) {
            try await joiner.start()
        }
        // Ended by the time limit, not by the kernel's own connect timeout (over 2 minutes); how
        // close to the limit is the lab test's figure, not a unit test's on a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("A HELLO whose sender does not answer on TCP: the joiner says whom it found, then gives up at --timeout")
    func unansweredHello() async throws {
        let port = try await Self.freePort()
        let blackHole = try await Self.unanswering(port: port)
        defer { for channel in blackHole { channel.close(promise: nil) } }
        // The limit passes once the HELLO was found, as its timer would make it pass: a limit of
        // a second in real time could pass before the HELLO is even sent, on a machine busy with
        // the whole suite.
        let joiner = Self.joiner(port: port, peer: nil, timeout: 60)
        try await joiner.start()
        try await Self.foreignHello(to: port)
        var events: [PairingEvent] = []
        for await event in joiner.events {
            events.append(event)
            if case .found = event { joiner.expire() }
        }
        #expect(events == [
            .found(host: "127.0.0.1", port: port),
            .unreachable("Cannot reach `baton pair` at 127.0.0.1:\(port): no answer within 60 s "
                + "(a firewall there may drop TCP \(port); `baton doctor` there checks)."),
        ])
    }

    @Test("A sharer whose TCP port is taken does not start, and the one holding it goes on undisturbed")
    func portTaken() async throws {
        let port = try await Self.freePort()
        let first = Self.sharer(port: port, name: "first")
        try await first.start()
        let second = Self.sharer(port: port, name: "second")
        await #expect(throws: PairingSetupError(
            "Cannot listen on TCP port \(port) for pairing (is another `baton pair` running here?): Address already in use.")
        ) {
            try await second.start()
        }
        let joiner = Self.joiner(port: port, peer: "127.0.0.1:\(port)")
        try await joiner.start()
        async let firstEvents = Self.events(first, answering: true)
        #expect(Self.paired(await Self.events(joiner, answering: true).last, "first", Self.sharerID))
        #expect(Self.paired(await firstEvents.last, "joiner", Self.joinerID))
    }

    @Test("HOST[:PORT]: the port after the last colon, else the default; an unknown host is named")
    func peerAddress() throws {
        #expect(PairingPeerAddress.split("10.0.0.5:4000", defaultPort: 47790) == ("10.0.0.5", 4000))
        #expect(PairingPeerAddress.split("laptop", defaultPort: 47790) == ("laptop", 47790))
        #expect(try PairingPeerAddress.resolve("127.0.0.1", defaultPort: 47790).port == 47790)
        #expect(throws: PairingSetupError("--peer nowhere.invalid:5: cannot resolve nowhere.invalid.")) {
            try PairingPeerAddress.resolve("nowhere.invalid:5", defaultPort: 47790)
        }
    }
}

/// Another pairing's HELLO on the port: one pairing at a time.
extension PairingSessionTests {
    /// Sends a HELLO with a pairing id of its own to 127.0.0.1 at `port` (the HELLO socket listens on all addresses).
    static func foreignHello(to port: Int, version: UInt8 = Pairing.version) async throws {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        var hello = Pairing.hello(port: UInt16(port), pairingID: (0..<16).map { _ in UInt8.random(in: 0...255) })
        hello[4] = version
        try await channel.writeAndFlush(
            AddressedEnvelope(remoteAddress: try SocketAddress(ipAddress: "127.0.0.1", port: port), data: ByteBuffer(bytes: hello)))
        try await channel.close()
    }

    @Test("A sharer that hears another pairing's HELLO ends: another pairing is running")
    func sharerHearsAnotherPairing() async throws {
        let port = try await Self.freePort()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        try await Self.foreignHello(to: port)
        #expect(await Self.events(sharer, answering: nil) == [.failed(.anotherPairing(from: "127.0.0.1"))])
    }

    @Test("HELLOs of pairing version 1 are told once, with their address, and otherwise ignored: the pairing goes on")
    func olderHello() async throws {
        let port = try await Self.freePort()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        try await Self.foreignHello(to: port, version: 1)
        try await Self.foreignHello(to: port, version: 1)
        var events = sharer.events.makeAsyncIterator()
        #expect(await events.next() == .otherVersion(host: "127.0.0.1", version: 1))
        // Nothing else until a real pairing: a joiner pairs with it as usual.
        let joiner = Self.joiner(port: port, peer: "127.0.0.1:\(port)")
        try await joiner.start()
        async let joinerEvents = Self.events(joiner, answering: true)
        #expect(await events.next().map { if case .code = $0 { true } else { false } } == true)
        sharer.answer(true)
        #expect(Self.paired(await events.next(), "joiner", Self.joinerID))
        #expect(Self.paired(await joinerEvents.last, "sharer", Self.sharerID))
    }

    @Test("A second pairing id while a HELLO pairing runs ends both ends, with ABORT 02 between them")
    func joinerHearsAnotherPairing() async throws {
        let port = try await Self.freePort()
        let joiner = Self.joiner(port: port, peer: nil)
        try await joiner.start()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        var joinerEvents = joiner.events.makeAsyncIterator()
        guard case .found = await joinerEvents.next(), case .code = await joinerEvents.next() else {
            Issue.record("the joiner showed no code")
            return
        }
        try await Self.foreignHello(to: port)
        let ends = [await Self.events(sharer, answering: nil).last, await joinerEvents.next()]
        #expect(ends.allSatisfy { $0 == .failed(.anotherPairing(from: "127.0.0.1")) || $0 == .failed(.otherSideAborted(2)) })
        #expect(ends.contains(.failed(.anotherPairing(from: "127.0.0.1"))))
    }
}

/// The HELLO socket after a send error closed it.
extension PairingSessionTests {
    @Test("A HELLO socket closed under the sharer (as a send error closes it) opens again, and still hears other pairings")
    func helloSocketComesBack() async throws {
        let port = try await Self.freePort()
        let sharer = Self.sharer(port: port)
        try await sharer.start()
        try await sharer.loop.flatSubmit { sharer.hello!.close() }.get()
        let deadline = ContinuousClock.now + .seconds(5)
        while try await sharer.loop.submit({ sharer.hello == nil || sharer.reopeningHello }).get() {
            try #require(ContinuousClock.now < deadline, "the HELLO socket did not come back")
            try await Task.sleep(for: .milliseconds(5))  // wait-ok: polls a condition until its deadline
        }
        try await Self.foreignHello(to: port)
        #expect(await Self.events(sharer, answering: nil) == [.failed(.anotherPairing(from: "127.0.0.1"))])
    }
}
