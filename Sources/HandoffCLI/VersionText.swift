import BatonFiles
import FoundationEssentials
import Glibc
import HandoffWire

/// What `--version` prints: the program's version alone on the first line (scripts read it),
/// then the protocol versions it speaks and how its Swift runtime is linked.
///
///     1.0.0
///     protocols: datagram 2, state stream 3, pairing 2
///     build: dynamic Swift runtime
public enum VersionText {
    /// How the Swift runtime is linked into this process.
    public enum SwiftRuntime: Equatable, Sendable, CustomStringConvertible {
        /// `libswiftCore.so` is loaded from the toolchain or the system at run time.
        case dynamic
        /// The runtime is linked in (`--static-swift-stdlib`): no `libswiftCore.so` is loaded.
        case `static`
        /// `/proc/self/maps` could not be read.
        case unknown

        /// Whether `maps` (the text of `/proc/self/maps`) shows `libswiftCore.so` loaded.
        public static func detect(maps: String) -> SwiftRuntime {
            maps.contains("/libswiftCore.so") ? .dynamic : .static
        }

        /// This process's, from `/proc/self/maps`.
        public static func current() -> SwiftRuntime {
            let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return .unknown }
            defer { close(fd) }
            guard let bytes = Descriptor.read(fd, limit: 16 << 20), !bytes.isEmpty else { return .unknown }
            return detect(maps: String(decoding: bytes, as: UTF8.self))
        }

        public var description: String {
            switch self {
            case .dynamic: "dynamic Swift runtime"
            case .static: "static Swift runtime"
            case .unknown: "Swift runtime linkage unknown (/proc/self/maps unreadable)"
            }
        }
    }

    /// The protocols and their versions, as docs/PROTOCOL.md numbers them (sections 13 and 15):
    /// the datagrams (`peer.protocol`), the state stream (its version byte) and, for a program
    /// that pairs, pairing (HELLO's version byte).
    public static func protocols(pairing: Bool) -> [(name: String, version: Int)] {
        var list: [(name: String, version: Int)] = [
            ("datagram", PeerInfo.currentProtocolVersion), ("state stream", Int(StateStream.version)),
        ]
        if pairing { list.append(("pairing", Int(Pairing.version))) }
        return list
    }

    /// The whole text, three lines.
    public static func text(
        version: String, protocols: [(name: String, version: Int)], runtime: SwiftRuntime
    ) -> String {
        let spoken = protocols.map { "\($0.name) \($0.version)" }.joined(separator: ", ")
        return "\(version)\nprotocols: \(spoken)\nbuild: \(runtime)"
    }
}
