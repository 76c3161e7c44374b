import Foundation

/// A config folder of its own (XDG_CONFIG_HOME) for one test, removed afterwards: the
/// membership's files are written there, never in the home of whoever runs the tests.
final class ConfigFolder {
    let config: URL
    var baton: URL { config.appendingPathComponent("baton") }
    var environment: [String: String] { ["XDG_CONFIG_HOME": config.path] }

    init() throws {
        config = FileManager.default.temporaryDirectory.appendingPathComponent("baton-membership-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: config) }

    func path(_ name: String) -> String { baton.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String, mode: Int = 0o600) throws {
        try FileManager.default.createDirectory(at: baton, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(text.utf8).write(to: baton.appendingPathComponent(name))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(name))
    }

    func mode(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! Int
    }
}
