import Foundation
import Testing
@testable import PropertyList
import PropertyListFoundation

/// `BinaryPropertyListView` reads canonical plists in place. It may refuse what the strict
/// reader accepts (the caller then reads with that reader), but whatever it accepts the reader
/// accepts too, with the same values.
@Suite("A canonical plist read in place")
struct PropertyListViewTests {
    let limits = BinaryPropertyListReader.Limits()

    /// The view's tree as the reader's type.
    static func tree(_ view: BinaryPropertyListView, _ node: BinaryPropertyListView.Node) -> PropertyListValue {
        switch view.kind(node) {
        case .boolean: return .boolean(view.bool(node)!)
        case .integer: return .integer(view.int(node)!)
        case .string: return .string(view.string(node)!)
        case .array: return .array((0..<view.count(node)!).map { tree(view, view.element($0, of: node)) })
        case .dictionary:
            var entries: [String: PropertyListValue] = [:]
            for (key, value) in view.entries(node)! {
                #expect(view.value(forKey: key, in: node).map { tree(view, $0) }.map { plistExactlyEqual($0, tree(view, value)) } == true)
                entries[key] = tree(view, value)
            }
            return .dictionary(entries)
        }
    }

    /// Whether the view takes `value`'s canonical bytes: only booleans, integers, strings,
    /// arrays and dictionaries of at most 32 ASCII keys.
    static func viewable(_ value: PropertyListValue) -> Bool {
        switch value {
        case .boolean, .integer, .string: true
        case .array(let elements): elements.allSatisfy(viewable)
        case .dictionary(let entries):
            entries.count <= BinaryPropertyListView.mostKeys && entries.keys.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
                && entries.values.allSatisfy(viewable)
        default: false
        }
    }

    @Test("The writer's plists of the view's kinds are viewed, with the reader's values; others are left to the reader")
    func writersPlists() throws {
        var generator = PlistTestGenerator(seed: 0xBA70_0040, maxDepth: 5)
        var (viewed, left) = (0, 0)
        for _ in 0..<1_500 {
            let value = generator.value()
            let bytes = BinaryPropertyListWriter().write(value)
            let read = try BinaryPropertyListReader(limits: limits).read(bytes)
            if let view = BinaryPropertyListView(bytes, limits: limits) {
                #expect(Self.viewable(value), "viewed: \(value)")
                #expect(plistExactlyEqual(Self.tree(view, view.top), read), "\(value)")
                viewed += 1
            } else {
                #expect(!Self.viewable(value), "not viewed: \(value)")
                left += 1
            }
        }
        #expect(viewed > 100 && left > 100, "viewed \(viewed), left \(left)")
    }

    @Test("Mutated plists: whatever the view accepts, the reader accepts with the same values")
    func mutated() throws {
        var random = PlistTestRandom(seed: 0xBA70_0041)
        let seeds = try PropertyListRobustnessTests.seeds()
        #expect(seeds.count > 20)
        var (viewed, readerOnly, refused) = (0, 0, 0)
        for _ in 0..<20_000 {
            var bytes = seeds.randomElement(using: &random) ?? []
            for _ in 0..<Int.random(in: 1...2, using: &random) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] ^= 1 << UInt8.random(in: 0...7, using: &random)
                case 1: bytes[position] = [0x00, 0x08, 0x09, 0x0F, 0x13, 0x14, 0x23, 0x5F, 0x6F, 0xA1, 0xD1, 0xFF].randomElement(using: &random)!
                default: bytes[position] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let read = try? BinaryPropertyListReader(limits: limits).read(bytes)
            if let view = BinaryPropertyListView(bytes, limits: limits) {
                viewed += 1
                guard let read else {
                    Issue.record("the view accepted what the reader refuses: \(bytes)")
                    continue
                }
                #expect(plistExactlyEqual(Self.tree(view, view.top), read), "\(bytes)")
            } else if read != nil {
                readerOnly += 1
            } else {
                refused += 1
            }
        }
        #expect(viewed > 1_000 && readerOnly > 1_000 && refused > 1_000, "viewed \(viewed), reader only \(readerOnly), refused \(refused)")
    }

    @Test("Shared objects, another order, UTF-16 or repeated keys, reals, deep nesting: left to the reader")
    func leftToTheReader() throws {
        let reader = BinaryPropertyListReader(limits: limits)
        // One string used twice, as writers that share equal values write it: the reader takes
        // it, the view does not; written canonically, with a copy each, both do.
        let shared = RawBinaryPlist.build([[0xD2, 1, 2, 3, 3], [0x51, 0x61], [0x51, 0x62], [0x52, 0x68, 0x69]], top: 0)
        #expect(plistExactlyEqual(try reader.read(shared), ["a": "hi", "b": "hi"]))
        #expect(BinaryPropertyListView(shared, limits: limits) == nil)
        #expect(BinaryPropertyListView(BinaryPropertyListWriter().write(["a": "hi", "b": "hi"]), limits: limits) != nil)

        for value: PropertyListValue in [["é": 1], ["r": .real(1.5)], ["d": .data(Data([1]))], ["t": .date(Date(timeIntervalSinceReferenceDate: 0))]] {
            let bytes = BinaryPropertyListWriter().write(value)
            #expect(plistExactlyEqual(try reader.read(bytes), value))
            #expect(BinaryPropertyListView(bytes, limits: limits) == nil, "\(value)")
        }

        // Nested arrays: 32 deep is the reader's limit and the view's; 33 is refused by both.
        func nested(_ depth: Int) -> PropertyListValue { depth == 1 ? .array([1]) : .array([nested(depth - 1)]) }
        #expect(BinaryPropertyListView(BinaryPropertyListWriter().write(nested(32)), limits: limits) != nil)
        let tooDeep = BinaryPropertyListWriter().write(nested(33))
        #expect(BinaryPropertyListView(tooDeep, limits: limits) == nil)
        #expect(throws: PropertyListReadError.self) { try reader.read(tooDeep) }

        // The same key twice, written in canonical order by hand: refused by both.
        let twice = RawBinaryPlist.build([[0xD2, 1, 2, 3, 4], [0x51, 0x6B], [0x51, 0x6B], [0x10, 1], [0x10, 2]], top: 0)
        #expect(BinaryPropertyListView(twice, limits: limits) == nil)
        #expect(throws: PropertyListReadError.self) { try reader.read(twice) }
        // A reference out of the canonical order (the values swapped): the reader's, not the view's.
        let swapped = RawBinaryPlist.build([[0xD2, 1, 2, 4, 3], [0x51, 0x61], [0x51, 0x62], [0x10, 1], [0x10, 2]], top: 0)
        #expect(plistExactlyEqual(try reader.read(swapped), ["a": 2, "b": 1]))
        #expect(BinaryPropertyListView(swapped, limits: limits) == nil)
    }
}
