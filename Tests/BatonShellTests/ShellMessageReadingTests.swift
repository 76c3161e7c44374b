@testable import BatonShell
import PropertyList
import Testing

/// A shell message is read in place when its bytes are canonical (`BinaryPropertyListView`),
/// else from the strict reader's tree; both ways give the same message, or the same error.
@Suite("Shell messages read in place")
struct ShellMessageReadingTests {
    static let limits = BinaryPropertyListReader.Limits(maxObjects: 1 << 20, maxBytes: ShellMessage.maximumBytes)

    /// The message as the strict reader's tree gives it.
    static func fromTree(_ bytes: [UInt8]) -> Result<ShellMessage, ShellMessage.ReadError> {
        guard let value = try? BinaryPropertyListReader(limits: limits).read(bytes), value.isDictionary else {
            return .failure(.notAPropertyList)
        }
        return Result { () throws(ShellMessage.ReadError) in try ShellMessage(message: value) }
    }

    static func read(_ bytes: [UInt8]) -> Result<ShellMessage, ShellMessage.ReadError> {
        Result { () throws(ShellMessage.ReadError) in try ShellMessage(bytes: bytes) }
    }

    /// Every kind of message, and screens of many styles, wide and combined graphemes.
    static func messages() -> [ShellMessage] {
        var messages = ShellMessageTests.messages
        var generator = SystemRandomNumberGenerator()
        let graphemes = ["a", "~", " ", "中", "e\u{301}", "🇫", "👩\u{200D}💻", "é"]
        for round in 0..<100 {
            var screen = ShellMessageTests.randomScreen(round: round, rows: 3, columns: 10, graphemes: graphemes, using: &generator)
            screen.cursorRow = round % 3
            messages.append(.screen(ShellScreenUpdate(from: nil, to: screen, revision: round)))
        }
        return messages
    }

    @Test("Every message Baton writes is read in place, as the strict reader's tree reads it")
    func inPlace() {
        let messages = Self.messages()
        for message in messages {
            let bytes = message.bytes
            #expect(BinaryPropertyListView(bytes, limits: Self.limits) != nil, "\(message)")
            #expect(Self.read(bytes) == .success(message))
            #expect(Self.fromTree(bytes) == .success(message))
        }
        #expect(messages.count == 117)
    }

    @Test("Every byte of every message changed: read in place or not, the same message or the same error as from the tree")
    func mutated() {
        var random = SystemRandomNumberGenerator()
        var (inPlace, accepted, refused, compared) = (0, 0, 0, 0)
        for message in Self.messages().prefix(20) {
            let original = message.bytes
            for position in original.indices {
                for replacement in [original[position] ^ 1, original[position] ^ 0x80, UInt8.random(in: 0...255, using: &random)] {
                    var bytes = original
                    bytes[position] = replacement
                    let read = Self.read(bytes)
                    #expect(read == Self.fromTree(bytes), "byte \(position) of \(message) made \(replacement)")
                    if BinaryPropertyListView(bytes, limits: Self.limits) != nil { inPlace += 1 }
                    if case .success = read { accepted += 1 } else { refused += 1 }
                    compared += 1
                }
            }
        }
        #expect(inPlace > 500 && accepted > 500 && refused > 500, "in place \(inPlace), accepted \(accepted), refused \(refused)")
        #expect(compared > 5_000)
    }
}
