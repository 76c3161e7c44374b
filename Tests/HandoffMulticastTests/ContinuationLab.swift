import Foundation
@testable import Handoff
import HandoffTesting
import HandoffWire
import Synchronization
@testable import HandoffMulticast

/// Activity centers of three devices whose datagrams cross an in-memory LAN and whose state
/// streams (fetches and continuation streams) run over real TCP on 127.0.0.1: each center
/// serves on a `TCPStateServer` of its own. Nothing leaves the machine.
///
/// A center's datagrams come from the name of its transport, so the center named by `host`
/// `127.0.0.1` is reached there over TCP; the others are not reached (nobody opens to them).
@MainActor
final class ContinuationLab {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let alice = DeviceIdentity(seed: Array(0x40...0x5F))!
    static let bob = DeviceIdentity(seed: Array(0x60...0x7F))!
    static let carol = DeviceIdentity(seed: Array(0x80...0x9F))!

    let network = InMemoryNetwork()
    private var centers: [ActivityCenter] = []
    private var servers: [TCPStateServer] = []

    /// A started center of `device`, called `name`, whose list holds it and `listed` (with the
    /// names it gives them); its datagrams come from `host`.
    func center(
        _ device: DeviceIdentity, named name: String, host: String, listing listed: [(device: DeviceIdentity, name: String)]
    ) async throws -> ActivityCenter {
        let roster = DeviceRoster(
            own: device.publicIdentity, name: name, paired: listed.map { (identity: $0.device.publicIdentity, name: $0.name) })
        let membership = Membership(identity: device, keys: GroupKeys(current: Self.key), roster: roster)
        var config = ActivityCenter.Configuration(
            peer: PeerInfo(name: name, host: host, app: "baton-tests", appVersion: "0"),
            senderID: .random(device: device.publicIdentity.deviceID))
        config.repeatInterval = .milliseconds(100)
        // The handshake's 1 s is for a machine that does nothing else; the whole suite shares two
        // cores, and a test's tasks may wait there for a thread longer than any short limit.
        var limits = TCPStateServer.Limits()
        limits.handshakeTimeout = .seconds(600)
        let shelf = StateShelf()
        let server = try await TCPStateServer.start(
            shelf: shelf, identity: membership.streamIdentity(senderID: config.senderID), trust: membership.streamTrust,
            host: "127.0.0.1", limits: limits)
        servers.append(server)
        let center = ActivityCenter(
            registry: ActivityTypeRegistry(declaredTypes: ["dev.baton.editing"]), membership: membership,
            transport: network.makeTransport(name: host), configuration: config,
            // Virtual time that moves only while a test waits for a listing (`entry`): a stream's
            // 5 s for an answer and 15 s of silence never pass while its tasks wait for a thread.
            clock: ManualClock(start: Date()),
            stateStream: StateStreamSetup(shelf: shelf, port: server.port, dialer: TCPStreamDialer()))
        center.start()
        centers.append(center)
        return center
    }

    /// Publishes an editing activity on `center`, taking streams or not.
    static func publish(on center: ActivityCenter, streams: Bool, delegate: StreamTaker) throws -> UserActivity {
        let activity = UserActivity(activityType: "dev.baton.editing", center: center)
        activity.userInfo = ["text": "hello", "cursorLine": 0, "cursorColumn": 0, "fileName": "notes.txt"]
        activity.supportsContinuationStreams = streams
        activity.delegate = delegate
        try activity.becomeCurrent()
        return activity
    }

    /// `observer`'s entry for `activity` once it lists it as `ready` says.
    static func entry(
        of activity: UserActivity, on observer: ActivityCenter, ready: @escaping (NearbyActivity) -> Bool = { _ in true }
    ) async -> NearbyActivity? {
        let id = activity.activityID
        // The source saves at once the first time; a later save waits out its save window, which
        // passes here, on the source's clock, while the observer does not list it yet.
        let sourceClock = activity.center?.clock as? ManualClock
        _ = await waitUntil(timeout: .seconds(30)) {
            if observer.nearby.contains(where: { $0.id == id && ready($0) }) { return true }
            sourceClock?.advance(by: .milliseconds(20))
            return false
        }
        return observer.nearby.first { $0.id == id && ready($0) }
    }

    func shutdown() async {
        for center in centers { await center.shutdown() }
        for server in servers { await server.close() }
    }
}

/// The failure opening a stream from `center` to `entry` threw, or nil when it opened one
/// (which is then closed).
@MainActor
func openFailure(from center: ActivityCenter, to entry: NearbyActivity) async -> ContinuationStreamFailure? {
    do {
        let stream = try await center.openContinuationStream(to: entry)
        await stream.close()
        return nil
    } catch {
        guard case .continuationStream(_, let failure) = error else { return .refused(code: 0, message: "\(error)") }
        return failure
    }
}
