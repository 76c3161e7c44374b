import Foundation

/// Settings every end-to-end test shares.
enum E2E {
    /// The group key every host uses (base64 of 32 fixed bytes), so they all see each other and
    /// nobody else's.
    static let key = Data("e2e-baton-fixed-key-32-bytes-!!!".utf8).base64EncodedString()

    /// The protocol's default endpoint, which the tests use unchanged (each lab is a LAN of its own).
    static let group = "239.255.77.88"
    static let port = 47788
}

extension E2E {
    /// Whether `BATON_E2E_TRACE=1`: then each step prints a line with the time since the first.
    static let tracing = ProcessInfo.processInfo.environment["BATON_E2E_TRACE"] == "1"
    private static let start = Date()

    /// Prints `message` with the seconds since tracing began, when tracing.
    static func trace(_ message: @autoclosure () -> String) {
        guard tracing else { return }
        print(String(format: "[e2e %7.3f] ", Date().timeIntervalSince(start)) + message())
    }
}
