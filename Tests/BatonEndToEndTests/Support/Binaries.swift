import Foundation

/// Finds the built `baton` the tests drive, as the app and as the headless peer (`baton peer`).
///
/// It is looked up in `$BATON_E2E_BIN_DIR` when set, else in `.build/debug` of this
/// repository (found from this file's path, symlinks resolved). Build it first with
/// `swift build`; a test whose program is missing is skipped and says so.
enum Binaries {
    /// The repository this file belongs to.
    static let repositoryRoot: URL = {
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let path = realpath(#filePath, &resolved) != nil
            ? String(decoding: resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : #filePath
        return URL(fileURLWithPath: path)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // BatonEndToEndTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the repository
    }()

    /// Where the programs are looked for.
    static var directory: String {
        if let dir = ProcessInfo.processInfo.environment["BATON_E2E_BIN_DIR"], !dir.isEmpty { return dir }
        return repositoryRoot.appendingPathComponent(".build/debug").path
    }

    /// The command of the headless peer, `[baton, "peer"]`, to which a test adds `announce`,
    /// `listen` or `continue` and their options; skips the test when `baton` is missing or has
    /// no `peer` command yet.
    static func peer() throws -> [String] {
        let path = try require("baton")
        guard (try? Command.run([path, "peer", "--help"], check: false))?.status == 0 else {
            try skip("\(path) has no `baton peer` command yet; rebuild it with `swift build`")
        }
        return [path, "peer"]
    }

    /// The path of the built `baton`; skips the test when it is missing or is not yet the app
    /// (its `--help` does not offer `--continue-activity`).
    static func baton() throws -> String {
        let path = try require("baton")
        let help = (try? Command.run([path, "--help"], check: false)).map { $0.output + $0.errorOutput } ?? ""
        if !help.contains("--continue-activity") {
            try skip("\(path) is not the baton app yet (its --help does not mention --continue-activity); "
                + "rebuild it with `swift build`")
        }
        return path
    }

    private static func require(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            try skip("\(path) is missing; run `swift build` first (or set BATON_E2E_BIN_DIR)")
        }
        return path
    }
}
