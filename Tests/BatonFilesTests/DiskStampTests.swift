import BatonFiles
import Foundation
import Testing

@Suite("DiskStamp")
struct DiskStampTests {
    @Test("Nil for nothing; the same for an untouched file; different after an atomic rewrite of the same size")
    func seesWrites() throws {
        let folder = NSTemporaryDirectory() + "baton-stamp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/devices.json"
        #expect(DiskStamp.of(path) == nil)
        try AtomicFile.write(Array("one".utf8), to: path)
        let first = try #require(DiskStamp.of(path))
        #expect(first.size == 3)
        #expect(DiskStamp.of(path) == first)
        // Same size, and likely the same modification time: the rename gives a new inode.
        try AtomicFile.write(Array("two".utf8), to: path)
        let second = try #require(DiskStamp.of(path))
        #expect(second != first)
        #expect(second.inode != first.inode)
    }
}
