import Foundation
import Testing
@testable import HandoffWire

/// Fixed frames → exact bytes for one continuation stream (`Vectors/golden/continuation.json`),
/// on a connection with `stream.json`'s inputs and so its keys. `scripts/check-vectors.py`
/// checks the file independently; `BATON_WRITE_VECTORS=1 swift test --filter ContinuationVector`
/// rewrites it (only when the protocol deliberately changes).
@Suite("Continuation golden vectors")
struct ContinuationVectorTests {
    struct Vector: Codable, Equatable {
        var groupKey: String
        var clientKey: String
        var serverKey: String
        var activityID: String
        var message: String
        var frames: [StreamVectorTests.Frame]
    }

    static let file = GoldenVectorTests.folder.appendingPathComponent("continuation.json")
    static let hex = GoldenVectorTests.hex
    static let unhex = GoldenVectorTests.unhex
    static let activityID = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"
    static let message = Array("héllo 👋".utf8)

    /// The frames in order: (name, direction, frame). The ERROR is the other answer to the OPEN.
    static var script: [(String, String, ContinuationFrame)] {
        [
            ("OPEN", "client", .open(activityID: activityID)),
            ("ACCEPT", "server", .accept),
            ("MESSAGE", "client", .message(more: true, message[..<3])),
            ("MESSAGE", "client", .message(more: false, message[3...])),
            ("MESSAGE", "server", .message(more: false, [])),
            ("CREDIT", "server", .credit(262_144)),
            ("KEEPALIVE", "client", .keepAlive),
            ("CLOSE", "client", .close),
            ("CLOSE", "server", .close),
        ]
    }

    static func make() throws -> Vector {
        let stream = try StreamVectorTests.make()
        var sealers = ["client": StreamFrameSealer(key: unhex(stream.clientKey)), "server": StreamFrameSealer(key: unhex(stream.serverKey))]
        var frames: [StreamVectorTests.Frame] = []
        for (name, direction, frame) in script {
            let counter = sealers[direction]!.counter
            frames.append(.init(name: name, direction: direction, counter: counter, plaintext: hex(frame.plaintext), frame: hex(sealers[direction]!.seal(frame.plaintext))))
        }
        var refusal = StreamFrameSealer(key: unhex(stream.serverKey))
        let error = ContinuationFrame.error(.notHeld, message: "this activity is no longer held")
        frames.append(.init(name: "ERROR", direction: "server", counter: 0, plaintext: hex(error.plaintext), frame: hex(refusal.seal(error.plaintext))))
        return Vector(
            groupKey: stream.groupKey, clientKey: stream.clientKey, serverKey: stream.serverKey, activityID: activityID,
            message: hex(message), frames: frames)
    }

    @Test("The fixed frames give the committed bytes, and each committed frame opens and decodes back")
    func vector() throws {
        let made = try Self.make()
        let committed = try committedGolden(made, file: Self.file)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        #expect(try encoder.encode(made) == Data(contentsOf: Self.file), "the committed JSON, byte for byte")

        var deframers = ["client": StreamDeframer(key: Self.unhex(committed.clientKey)), "server": StreamDeframer(key: Self.unhex(committed.serverKey))]
        var decoded: [ContinuationFrame] = []
        for frame in committed.frames.dropLast() {
            deframers[frame.direction]!.append(Self.unhex(frame.frame))
            let plaintext = try #require(try deframers[frame.direction]!.next())
            decoded.append(try ContinuationFrame(plaintext: plaintext[...]))
        }
        #expect(decoded == Self.script.map(\.2))
        var refused = StreamDeframer(key: Self.unhex(committed.serverKey))
        refused.append(Self.unhex(committed.frames.last!.frame))
        let error = try ContinuationFrame(plaintext: try #require(try refused.next())[...])
        #expect(error == .error(.notHeld, message: "this activity is no longer held"))
    }
}
