import Crypto
import FoundationEssentials
import HandoffWire

/// The key-value stores' part of the bus (docs/PROTOCOL.md section 18): owns STORE, hands
/// each one accepted from a listed device to its `listener` (`HandoffStore`'s `StoreSync`),
/// sends STOREs, and keeps and fetches store states on the state stream under their own key
/// on the shelf (`StateShelf.Key.storeState`). The stores themselves, and when to send, live
/// above it.
@MainActor
final class StoreService: BusService {
    let kinds: Set<DatagramKind> = [.store]
    private unowned let bus: DatagramBus
    /// Called with every STORE accepted, its sender and the host it came from
    /// (`NearbyActivity.sourceHost`'s form), where its store state is fetched.
    var listener: (@MainActor (StoreMessage, SenderID, String?) -> Void)?

    init(bus: DatagramBus) {
        self.bus = bus
    }

    func busStarted(now: ClockReading) {}
    var nextDeadline: ContinuousClock.Instant? { nil }
    func tick(now: ClockReading) {}

    func receive(_ delivery: BusDelivery, now: ClockReading) {
        for arrival in delivery.arrivals {
            guard case .store(let message) = arrival.message else { continue }
            listener?(message, arrival.sender, arrival.source.flatMap(NearbyActivity.host(of:)))
        }
    }

    /// Sends a STORE, numbered after everything sent before it; nothing before the bus starts
    /// or after it shuts down. False when it was not sent.
    func send(_ message: StoreMessage) -> Bool {
        guard bus.isStarted, bus.isRunning else { return false }
        return bus.send(.store(message), at: bus.clock.date)
    }

    /// Keeps store `store`'s state `revision`, made by `make` (the same bytes each time), to
    /// serve, and says where it is; nil without a state stream, or when its size is out of range.
    func shelveState(store: String, revision: Int, make: @escaping @Sendable () -> [UInt8]) -> StoreState? {
        guard let stream = bus.stateStream else { return nil }
        let bytes = make()
        guard StoreState.sizes.contains(bytes.count) else { return nil }
        let digest = Array(SHA256.hash(data: bytes))
        stream.shelf.put(.storeState(store: store), revision: revision, digest: digest, remake: make)
        return StoreState(size: bytes.count, digest: digest, port: stream.port, revision: revision)
    }

    /// Fetches store `store`'s `state` from `sender`'s device at `host`, checked against its
    /// size and digest.
    func fetchState(_ state: StoreState, store: String, from sender: SenderID, host: String)
        async throws(HandoffError) -> [UInt8]
    {
        guard let stream = bus.stateStream else {
            throw .transferFailed(peer: host, reason: "this program runs without the state stream")
        }
        guard let device = bus.membership.device(for: sender.tag) else {
            throw .transferFailed(peer: host, reason: "its device is not on this machine's list")
        }
        let fetcher = bus.stateFetcher(stream, maximumSize: StoreState.sizes.upperBound)
        let request = StateRequest(
            key: .storeState(store: store), revision: state.revision, digest: state.digest, size: state.size)
        let source = StreamSource(senderID: sender, identity: device)
        let outcome: Result<[UInt8], HandoffError> = await Task.detached {
            do throws(StreamFailure) {
                return .success(try await fetcher.fetch(from: host, port: state.port, source: source, request: request))
            } catch {
                return .failure(ActivityCenter.fetchFailure(error, peer: host, host: host, port: state.port))
            }
        }.valueCancellingWith()
        return try outcome.get()
    }
}
