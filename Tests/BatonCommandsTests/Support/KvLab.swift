import BatonCommands
import Foundation
import Handoff
import HandoffStore
import HandoffTesting
import HandoffWire

/// Devices on an in-memory LAN for the kv commands' work: each a center of its own device,
/// listing the others as paired, and a home folder of its own for the commands that read disk.
@MainActor
final class KvLab {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let identities = [0xA1, 0xB0, 0xC0].map { DeviceIdentity(seed: Array(repeating: UInt8($0), count: 32))! }
    static let registry = ActivityTypeRegistry(declaredTypes: ["dev.baton.counter"], schemas: [:])

    let network = InMemoryNetwork()
    private var centers: [ActivityCenter] = []
    private var syncs: [StoreSync] = []
    /// What sessions said on standard error, in order.
    private(set) var said: [String] = []

    /// A center for device `index`, named `name`, started, on `clock`.
    func center(_ index: Int, named name: String, clock: any HandoffClock = SystemClock()) -> ActivityCenter {
        let identity = Self.identities[index]
        let others = Self.identities.enumerated().filter { $0.offset != index }.map(\.element)
        let roster = DeviceRoster(own: identity.publicIdentity, name: name, paired: others.map { ($0.publicIdentity, "peer") })
        let config = ActivityCenter.Configuration(
            peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0"),
            senderID: .random(device: identity.publicIdentity.deviceID))
        let center = ActivityCenter(
            registry: Self.registry,
            membership: Membership(identity: identity, keys: GroupKeys(current: Self.key, previous: nil), roster: roster),
            transport: network.makeTransport(name: name), configuration: config, clock: clock)
        center.start()
        centers.append(center)
        return center
    }

    /// A peer holding its stores in memory and answering, as any running Baton program does.
    func peer(_ index: Int, named name: String) -> StoreSync {
        let sync = StoreSync(center: center(index, named: name), folder: nil)
        sync.start()
        syncs.append(sync)
        return sync
    }

    /// A kv session of device `index` (stores in `folder`, nil: in memory); leaving shuts its
    /// center down.
    func session(
        _ index: Int, named name: String, store: StoreName = .standard, folder: String? = nil,
        clock: any HandoffClock = SystemClock()
    ) async throws(KvFailure) -> KvSession {
        let center = center(index, named: name, clock: clock)
        return try await KvSession.open(center: center, folder: folder, store: store, say: { self.said.append($0) }) {
            await center.shutdown()
        }
    }

    func shutdown() async {
        for sync in syncs { sync.stop() }
        for center in centers { await center.shutdown() }
    }
}

/// A home of its own for one test (XDG_CONFIG_HOME and XDG_STATE_HOME inside it), removed
/// afterwards: the identity and the stores are made there.
final class KvHome {
    let root: URL
    var environment: [String: String] {
        ["HOME": root.path, "XDG_CONFIG_HOME": root.path + "/config", "XDG_STATE_HOME": root.path + "/state"]
    }
    var machine: KvMachine { KvMachine(environment: environment) }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("baton-kv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// The stores' folder, made.
    func storeFolder() throws -> String {
        let folder = StoreFile.defaultFolder(environment: environment)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}

extension StoreKey {
    /// A key the tests know to be one.
    static func named(_ text: String) -> StoreKey { try! StoreKey(parsing: text) }
}

extension StoreName {
    static func named(_ text: String) -> StoreName { try! StoreName(parsing: text) }
}
