import Foundation
import Synchronization
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// The bus: what every kind shares (numbering, sealing, the gate, statistics), and services
/// that get only the kinds they own.
@MainActor
@Suite("DatagramBus: one sequence and one gate, each kind to its service")
struct DatagramBusTests {
    /// Keeps what it is asked to write.
    final class Wire: ActivityTransport {
        private let written = Mutex<[[UInt8]]>([])
        var endpointDescription: String { "wire" }
        func start(_ handler: TransportHandler) {}
        func send(_ bytes: [UInt8]) { written.withLock { $0.append(bytes) } }
        func close() async {}
        var headers: [DatagramHeader] { written.withLock { $0 }.compactMap { try? DatagramHeader(parsing: $0) } }
    }

    /// A service that keeps what it was handed.
    final class Keeper: BusService {
        let kinds: Set<DatagramKind>
        var heard: [HandoffMessage] = []
        var started: ClockReading?
        init(_ kinds: Set<DatagramKind>) { self.kinds = kinds }
        func busStarted(now: ClockReading) { started = now }
        func receive(_ delivery: BusDelivery, now: ClockReading) { heard += delivery.arrivals.map(\.message) }
        var nextDeadline: ContinuousClock.Instant? { nil }
        func tick(now: ClockReading) {}
    }

    static func bus(_ membership: Membership = .sharedDevice(of: Fixtures.key), wire: Wire = Wire()) -> DatagramBus {
        DatagramBus(
            membership: membership, transport: wire, clock: SystemClock(), senderID: Fixtures.sender(1),
            allowedClockSkew: 60, limits: .init(), newsFrame: .zero, stateStream: nil,
            logger: .init(label: "test"))
    }

    static let devices = HandoffMessage.devices(statements: [Array(repeating: 1, count: 64)], digest: Array(repeating: 2, count: 8))
    static let store = HandoffMessage.store(StoreMessage(store: "notes", digests: .empty))

    @Test("Each service is handed the kinds it owns and no other; a kind nobody owns is counted, not handed on")
    func kindsGoToTheirService() {
        let bus = Self.bus()
        let queries = Keeper([.query])
        let stores = Keeper([.store])
        bus.register(queries)
        bus.register(stores)
        let now = Date()
        for (sequence, message) in [Self.store, .query(types: nil), .continued(activityID: UUID().uuidString, peer: Fixtures.peer), .query(types: ["x"])].enumerated() {
            bus.receive(
                ReceivedDatagram(bytes: Fixtures.seal(message, sequence: UInt64(sequence + 1), sentAt: now)), now: now)
        }
        #expect(queries.heard == [.query(types: nil), .query(types: ["x"])])
        #expect(stores.heard == [Self.store])
        #expect(bus.statistics.accepted == 4, "\(bus.statistics)")
    }

    @Test("Whatever service sends, the sequence follows the order of writing; DEVICES go under both keys with one sequence")
    func oneSequenceForAllKinds() {
        let wire = Wire()
        let identity = Fixtures.device
        let membership = Membership(
            identity: identity, keys: GroupKeys(current: Fixtures.key, previous: Fixtures.otherKey),
            roster: DeviceRoster(own: identity.publicIdentity, name: "this device"))
        let bus = Self.bus(membership, wire: wire)
        let now = Date()
        #expect(bus.send(.query(types: nil), at: now))
        #expect(bus.send(Self.devices, at: now, previousKeyToo: true))
        #expect(bus.send(Self.store, at: now))
        let headers = wire.headers
        #expect(headers.map(\.sequence) == [1, 2, 2, 3])
        #expect(headers.map(\.kind) == [.query, .devices, .devices, .store])
        #expect(headers.map(\.keyID) == [Fixtures.key.keyID, Fixtures.key.keyID, Fixtures.otherKey.keyID, Fixtures.key.keyID])
        #expect(bus.sentCount == 3)
    }

    @Test("Services hear the start in the order they registered; nothing is sent after shutdown")
    func life() async {
        let wire = Wire()
        let bus = Self.bus(wire: wire)
        let first = Keeper([.announce])
        bus.register(first)
        bus.start()
        #expect(first.started != nil)
        await bus.shutdown()
        #expect(!bus.send(.query(types: nil), at: Date()))
        #expect(wire.headers.isEmpty)
    }
}

/// The store's service as `HandoffStore` reaches it through the center.
@MainActor
@Suite("StoreService through ActivityCenter: STOREs numbered by the bus, store states on the shelf under their own key")
struct StoreServiceTests {
    static func center(_ shelf: StateShelf, wire: DatagramBusTests.Wire) -> ActivityCenter {
        ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: wire,
            configuration: .init(peer: Fixtures.peer, senderID: Fixtures.sender(1)),
            stateStream: StateStreamSetup(shelf: shelf, port: 40_001, dialer: InMemoryStreams()))
    }

    @Test("A store state is kept as .storeState, which a GET names store:NAME, and is no activity; a STORE goes only while started")
    func storeStateKeyAndSend() async {
        let shelf = StateShelf()
        let wire = DatagramBusTests.Wire()
        let center = Self.center(shelf, wire: wire)
        let bytes: [UInt8] = Array(repeating: 3, count: 2_000)
        let state = center.shelveStoreState(store: "notes", revision: 2) { bytes }
        #expect(state?.size == 2_000 && state?.port == 40_001 && state?.revision == 2)
        #expect(shelf.keys == [.storeState(store: "notes")])
        #expect(shelf.activityIDs.isEmpty, "a store state does not pose as an activity")
        let request = StateRequest(activityID: "store:notes", revision: 2, digest: state?.digest ?? [], size: 2_000)
        #expect(shelf.servable(request.key, revision: 2, digest: request.digest)?.bytes == bytes)

        #expect(!center.sendStore(StoreMessage(store: "notes", digests: .empty)), "nothing before start")
        center.start()
        #expect(center.sendStore(StoreMessage(store: "notes", digests: .empty)))
        #expect(wire.headers.filter { $0.kind == .store }.map(\.sequence).count == 1)
        await center.shutdown()
        #expect(!center.sendStore(StoreMessage(store: "notes", digests: .empty)), "nothing after shutdown")
    }
}
