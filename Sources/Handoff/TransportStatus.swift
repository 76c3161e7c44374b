/// The paths of a transport and whether each works: what the status bar, `baton monitor` and
/// `baton doctor` say about the network ("multicast unavailable on wg0: unicast only").
public struct TransportStatus: Sendable, Equatable, CustomStringConvertible {
    /// One way datagrams leave and arrive.
    public struct Path: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable, Equatable {
            case multicast, unicast, relay
        }
        public enum State: Sendable, Equatable {
            /// Working.
            case up
            /// Being set up, or reconnecting after an outage.
            case connecting
            /// Not working, with why, in words for people.
            case down(reason: String)
        }
        public var kind: Kind
        public var state: State
        /// Where it goes: `239.255.77.88:47788 on eth0`, `mqtt://broker:1883`, `2 peers`.
        public var detail: String

        public init(kind: Kind, state: State, detail: String) {
            self.kind = kind
            self.state = state
            self.detail = detail
        }

        public var isUp: Bool { state == .up }

        /// `multicast 239.255.77.88:47788 on eth0`, `relay mqtt://b:1883 unavailable: connection refused`.
        public var description: String {
            switch state {
            case .up: "\(kind.rawValue) \(detail)"
            case .connecting: "\(kind.rawValue) \(detail) connecting"
            case .down(let reason): "\(kind.rawValue) \(detail) unavailable: \(reason)"
            }
        }
    }

    public var paths: [Path]

    public init(paths: [Path] = []) {
        self.paths = paths
    }

    /// The first path of `kind`, if the transport has one.
    public func path(_ kind: Path.Kind) -> Path? { paths.first { $0.kind == kind } }

    /// The paths that do not work, in order.
    public var problems: [Path] { paths.filter { !$0.isUp } }

    /// One line for a status bar, or nil when every path works: `multicast unavailable on wg0:
    /// unicast only`, `relay reconnecting`, …
    public var warning: String? {
        let down = problems
        guard !down.isEmpty else { return nil }
        let working = paths.filter(\.isUp).map(\.kind.rawValue)
        let parts = down.map { path -> String in
            switch path.state {
            case .up: ""
            case .connecting: "\(path.kind.rawValue) connecting"
            case .down(let reason): "\(path.kind.rawValue) unavailable (\(reason))"
            }
        }
        let rest = working.isEmpty ? "no path works" : working.joined(separator: " and ") + " only"
        return parts.joined(separator: ", ") + ": " + rest
    }

    public var description: String { paths.map(\.description).joined(separator: "; ") }
}
