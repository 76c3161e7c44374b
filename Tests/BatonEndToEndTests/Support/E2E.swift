import Foundation

/// Settings every end-to-end test shares.
enum E2E {
    /// The group key every host uses (base64 of 32 fixed bytes), so they all see each other and
    /// nobody else's.
    static let key = Data("e2e-baton-fixed-key-32-bytes-!!!".utf8).base64EncodedString()

    /// The identity seed every program started with `key` shares (base64 of 32 fixed bytes): the
    /// lab's one device, so that its programs hear each other as they would after pairing. Tests of
    /// identities and pairing give their programs identities of their own instead.
    static let identity = Data("e2e-baton-one-lab-device-seed-32".utf8).base64EncodedString()

    /// Writes the lab's shared identity into the config folder `config` (`config/baton/identity.key`,
    /// mode 0600 in a 0700 folder), as Baton would keep its own.
    /// Tests running side by side share folders such as `baton-faults-config`: one at a time
    /// writes, so that none sees the file between its removal and its new contents.
    static func giveSharedIdentity(config: String) throws {
        try identityLock.withLock { try writeSharedIdentity(config: config) }
    }

    private static let identityLock = NSLock()

    private static func writeSharedIdentity(config: String) throws {
        let folder = URL(fileURLWithPath: config).appendingPathComponent("baton")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o700)
        let file = folder.appendingPathComponent("identity.key").path
        let contents = Data((identity + "\n").utf8)
        // A folder kept from an earlier run may hold another identity: this one replaces it.
        if FileManager.default.contents(atPath: file) == contents { return }
        try? FileManager.default.removeItem(atPath: file)
        guard FileManager.default.createFile(atPath: file, contents: contents, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
    }

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
