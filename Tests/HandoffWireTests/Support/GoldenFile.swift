import Foundation
import Testing

/// The committed golden vector in `file`, after checking that `made` (what the code makes from
/// the fixed inputs) equals it. With `BATON_WRITE_VECTORS=1` in the environment, `made` is
/// written to `file` first: that is how a deliberate change to the contract is committed.
func committedGolden<V: Codable & Equatable>(_ made: V, file: URL) throws -> V {
    if ProcessInfo.processInfo.environment["BATON_WRITE_VECTORS"] == "1" {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(made).write(to: file)
    }
    let committed = try JSONDecoder().decode(V.self, from: Data(contentsOf: file))
    #expect(made == committed)
    return committed
}
