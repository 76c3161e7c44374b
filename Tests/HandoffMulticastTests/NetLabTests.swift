import Foundation
import Testing
@testable import HandoffMulticast

/// Checks the facts `NetLab` relies on to put a transport into a namespace.
@Suite(
    "Network namespaces of threads and sockets",
    .serialized,
    .enabled(if: NetLab.isUsable, "needs root and working `ip netns` (the reason is printed)"),
    .timeLimit(.minutes(1))
)
struct NetLabTests {
    @Test("A socket stays in the namespace of the thread that created it, after that thread switches back")
    func socketStaysInTheNamespaceItWasCreatedIn() async throws {
        try await NetLab.withLab(hosts: 1) { lab in
            let namespace = lab.namespace(ofHost: 1)
            let outcome = try await onDedicatedThread { () throws -> SwitchOutcome in
                let home = NetLab.currentThreadNamespace()
                let homeDescriptor = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
                defer { close(homeDescriptor) }
                try NetLab.enter(namespace: namespace)
                let created = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                try NetLab.enter(descriptor: homeDescriptor, label: "the thread's first namespace")
                let fresh = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                defer {
                    close(created)
                    close(fresh)
                }
                // 10.77.0.11 exists only in the lab: binding to it works only for a socket that lives there.
                return SwitchOutcome(
                    backHome: home != nil && NetLab.currentThreadNamespace() == home,
                    bindInLab: bindToLabAddress(created),
                    bindOutside: bindToLabAddress(fresh)
                )
            }
            #expect(outcome.backHome)
            #expect(outcome.bindInLab == 0)
            #expect(outcome.bindOutside == EADDRNOTAVAIL)
        }
    }

    @Test("A transport's thread moves into the lab; the test's threads and the process stay where they were")
    func transportThreadMovesButTestThreadsStay() async throws {
        let processBefore = NetLab.identity(of: "/proc/self/ns/net")
        let threadBefore = NetLab.currentThreadNamespace()
        try await NetLab.withLab(hosts: 1) { lab in
            let transport = try await lab.start(on: 1)
            // `v0` exists only inside the lab: the device list and route were read there.
            #expect(transport.interfaceName == "v0")
            #expect(NetLab.identity(of: "/proc/self/ns/net") == processBefore)
            #expect(NetLab.currentThreadNamespace() == threadBefore)
            #expect(NetLab.currentThreadNamespace() != lab.namespaceIdentity(ofHost: 1))
        }
    }
}

/// What the dedicated thread saw: whether it got home, and each socket's bind result.
private struct SwitchOutcome: Sendable {
    var backHome: Bool
    var bindInLab: Int32
    var bindOutside: Int32
}

/// Binds `descriptor` to the lab address 10.77.0.11, port 0; returns 0 or the errno.
private func bindToLabAddress(_ descriptor: Int32) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    inet_pton(AF_INET, "10.77.0.11", &address.sin_addr)
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    return result == 0 ? 0 : errno
}
