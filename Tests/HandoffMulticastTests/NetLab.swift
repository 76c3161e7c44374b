import Foundation
@testable import HandoffMulticast

/// A LAN of network namespaces, made by `scripts/netlab` for one test and always removed after it.
///
/// ## How a transport gets into a lab namespace
///
/// On Linux the network namespace belongs to each *thread*, not the process: `setns(fd,
/// CLONE_NEWNET)` moves only the calling thread. A socket belongs for its whole life to the
/// namespace of the thread that created it, whichever thread uses it later; listing devices
/// (`getifaddrs`) and choosing routes answer for the calling thread's namespace too.
/// (`socketStaysInTheNamespaceItWasCreatedIn` checks this: a socket made after `setns` and
/// used after switching back still binds a lab-only address.)
///
/// Test code runs on Swift concurrency's shared threads, which other tasks reuse, so no test
/// thread is ever switched. Instead every `MulticastTransport` owns one event-loop thread,
/// and `MulticastTransport.start(_:preparingThread:)` runs `NetLab.enter(namespace:)` on that
/// thread before it lists devices, resolves the route, or creates its socket — all on that
/// thread. The thread stays in the lab until the transport closes and the thread ends.
/// (`transportThreadMovesButTestThreadsStay` checks that the test's threads stay put.)
struct NetLab: Sendable {
    /// The lab's name; its namespaces are `NAME-lan` and `NAME-h1…NAME-hN`.
    let name: String
    private let transports = TransportList()

    /// `scripts/netlab` in this repository, found from this file's path.
    static let script: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // HandoffMulticastTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the repository
        .appendingPathComponent("scripts/netlab").path

    /// Why labs cannot be made here, or nil when they can.
    static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "not running as root (network namespaces need CAP_SYS_ADMIN)" }
        do {
            try netlab(["ok"])
        } catch {
            return "\(error)"
        }
        return nil
    }()

    /// Whether labs can be made here; prints why not, once, when they cannot.
    static let isUsable: Bool = {
        if let reason = unavailableReason {
            print("skipping network-namespace tests: \(reason)")
            return false
        }
        return true
    }()

    /// Whether `nft` is installed (for `setLoss`); prints why not, once, when it is missing.
    static let hasNFT: Bool = {
        guard isUsable else { return false }
        let found = ["/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        if !found {
            print("skipping packet-loss tests: nft not found (apt-get install -y nftables)")
        }
        return found
    }()

    /// Runs `body` with a bridge lab of `hosts` hosts (`10.77.0.(10+i)` on `v0`), then closes
    /// every transport started in it and removes the lab, whether `body` succeeded or not.
    static func withLab<Result>(hosts: Int, _ body: (NetLab) async throws -> Result) async throws -> Result {
        try await withLab(creating: { ["up", $0, String(hosts)] }, body)
    }

    /// Runs `body` with a one-host lab that has only `lo` (multicast on, route 224.0.0.0/4 via lo from 127.0.0.1).
    static func withSingleHostLab<Result>(_ body: (NetLab) async throws -> Result) async throws -> Result {
        try await withLab(creating: { ["single", $0] }, body)
    }

    private static func withLab<Result>(
        creating arguments: (String) -> [String],
        _ body: (NetLab) async throws -> Result
    ) async throws -> Result {
        let lab = NetLab(name: "bt" + String(UInt32.random(in: 0...UInt32.max), radix: 36))
        defer { lab.down() }
        try netlab(arguments(lab.name))
        do {
            let result = try await body(lab)
            await lab.closeTransports()
            return result
        } catch {
            await lab.closeTransports()
            throw error
        }
    }

    /// The namespace of host `host` (1-based).
    func namespace(ofHost host: Int) -> String { "\(name)-h\(host)" }

    /// Starts a transport whose socket lives in host `host`'s namespace; the lab closes it at the end.
    func start(
        on host: Int,
        _ configuration: MulticastConfiguration = MulticastConfiguration()
    ) async throws(MulticastError) -> MulticastTransport {
        let namespace = namespace(ofHost: host)
        let transport = try await MulticastTransport.start(configuration) {
            try NetLab.enter(namespace: namespace)
        }
        transports.append(transport)
        return transport
    }

    /// Drops `percent`% of the UDP arriving at host `host`; 0 removes the rule.
    func setLoss(host: Int, percent: Int) throws {
        try Self.netlab(["loss", name, String(host), String(percent)])
    }

    /// How many packets the loss rule of host `host` dropped so far.
    func drops(host: Int) throws -> Int {
        let output = try Self.netlab(["drops", name, String(host)])
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Gives host `host` a second interface on a bridge with no other peers.
    func addInterface(host: Int, name interface: String, cidr: String) throws {
        try Self.netlab(["addif", name, String(host), interface, cidr])
    }

    /// Runs a command in host `host`'s namespace.
    func exec(host: Int, _ command: String...) throws {
        try Self.netlab(["exec", name, String(host)] + command)
    }

    private func closeTransports() async {
        for transport in transports.removeAll() {
            await transport.close()
        }
    }

    private func down() {
        _ = try? Self.netlab(["down", name])
    }

    /// Runs `scripts/netlab` and returns what it printed; a non-zero exit is an error carrying the output.
    @discardableResult
    static func netlab(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NetLabError.commandFailed(arguments: arguments, status: process.terminationStatus, output: output)
        }
        return output
    }

    // MARK: - Namespaces of threads

    /// `CLONE_NEWNET` from `<sched.h>`, which Swift's Glibc module leaves out (it needs `_GNU_SOURCE`).
    private static let cloneNewNet: Int32 = 0x4000_0000

    /// `setns(2)`, looked up at run time for the same reason.
    private static let setns: @convention(c) (Int32, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
            fatalError("setns is missing from the C library")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    /// Moves the calling thread — only it — into the network namespace `namespace`, and checks it arrived.
    static func enter(namespace: String) throws {
        let path = "/var/run/netns/\(namespace)"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw NetLabError.namespaceUnavailable(path: path, errno: errno) }
        defer { close(descriptor) }
        try enter(descriptor: descriptor, label: namespace)
        guard let target = identity(of: path), currentThreadNamespace() == target else {
            throw NetLabError.notInNamespace(namespace: namespace)
        }
    }

    /// Moves the calling thread into the namespace that `descriptor` (an open nsfs file) names.
    static func enter(descriptor: Int32, label: String) throws {
        guard setns(descriptor, cloneNewNet) == 0 else {
            throw NetLabError.setnsFailed(namespace: label, errno: errno)
        }
    }

    /// The network namespace of the calling thread, as (device, inode) of its nsfs file.
    static func currentThreadNamespace() -> NamespaceIdentity? {
        identity(of: "/proc/thread-self/ns/net")
    }

    /// The network namespace of the named lab host.
    func namespaceIdentity(ofHost host: Int) -> NamespaceIdentity? {
        Self.identity(of: "/var/run/netns/\(namespace(ofHost: host))")
    }

    /// Identifies a namespace: the device and inode of its nsfs file.
    struct NamespaceIdentity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(of path: String) -> NamespaceIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return NamespaceIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}

/// The transports a lab started, so it can close them when the test ends.
private final class TransportList: @unchecked Sendable {
    private let lock = NSLock()
    private var transports: [MulticastTransport] = []

    func append(_ transport: MulticastTransport) {
        lock.withLock { transports.append(transport) }
    }

    func removeAll() -> [MulticastTransport] {
        lock.withLock {
            defer { transports.removeAll() }
            return transports
        }
    }
}
