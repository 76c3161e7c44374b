import Foundation
import Testing
@testable import PropertyList

@Suite("Writing a plist object by object")
struct PropertyListBuilderTests {
    @Test("Objects added one by one are the writer's bytes for the same tree: literals, strings, every scalar, nesting")
    func sameAsTheTree() {
        let text = String(repeating: "ü ✓ 𝄞 ", count: 400)  // UTF-16, surrogate pairs, a long length
        let date = Date(timeIntervalSinceReferenceDate: 86_400.5)
        var builder = BinaryPropertyListBuilder(objects: 4)  // smaller than it will need
        builder.beginDictionary(keys: ["a", "b", "kind", "list", "z"])
        builder.add(true)
        builder.add(Data([0, 1, 2]))
        builder.add(literal: "screen")
        builder.beginArray()
        for number in 0..<300 { builder.add(number * 1_000) }  // past 255 objects: wider references
        builder.beginArray()
        builder.add(-1)
        builder.add(2.5)
        builder.add(date)
        builder.end()
        builder.beginDictionary(keys: [])
        builder.end()
        builder.end()
        builder.add(text)
        builder.end()
        let tree: PropertyListValue = .dictionary([
            "kind": "screen", "z": .string(text), "a": true, "b": .data(Data([0, 1, 2])),
            "list": .array((0..<300).map { .integer($0 * 1_000) } + [.array([-1, .real(2.5), .date(date)]), .dictionary([:])]),
        ])
        let bytes = builder.finish()
        #expect(bytes == BinaryPropertyListWriter().write(tree))
        #expect((try? BinaryPropertyListReader(limits: .init(maxBytes: 1 << 20)).read(bytes)) == tree)
    }
}
