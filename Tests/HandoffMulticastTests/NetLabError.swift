/// Why a lab could not be built, changed, or entered.
enum NetLabError: Error, CustomStringConvertible {
    /// `scripts/netlab ARGUMENTS` exited with `status`; `output` is what it printed.
    case commandFailed(arguments: [String], status: Int32, output: String)
    /// The namespace file could not be opened (`errno` from `open`).
    case namespaceUnavailable(path: String, errno: Int32)
    /// `setns` refused to move the thread into `namespace`.
    case setnsFailed(namespace: String, errno: Int32)
    /// After `setns` the thread still was not in `namespace`.
    case notInNamespace(namespace: String)

    var description: String {
        switch self {
        case .commandFailed(let arguments, let status, let output):
            "scripts/netlab \(arguments.joined(separator: " ")) exited with \(status): \(output)"
        case .namespaceUnavailable(let path, let code):
            "Could not open \(path) (errno \(code)); is the lab up?"
        case .setnsFailed(let namespace, let code):
            "setns into \(namespace) failed (errno \(code)); this needs root (CAP_SYS_ADMIN)."
        case .notInNamespace(let namespace):
            "The thread is not in \(namespace) after setns."
        }
    }
}
