import FoundationEssentials

/// Builds the canonical `bplist00` bytes of ``BinaryPropertyListWriter`` one object at a time,
/// in the writer's order, with no ``PropertyListValue`` tree: a message of known shape (a shell
/// session's screen update) writes its fields straight in, and the writer itself walks a tree
/// into one.
///
/// Objects come in the canonical order: a container, then its children's trees in order; a
/// dictionary's keys are given when it begins, ordered by their UTF-8 bytes, and its values
/// follow in the same order. Each container ends with ``end()``.
///
///     var builder = BinaryPropertyListBuilder()
///     builder.beginDictionary(keys: ["kind", "rows"])
///     builder.add(literal: "screen")
///     builder.add(24)
///     builder.end()
///     let bytes = builder.finish()
public struct BinaryPropertyListBuilder: Sendable {
    enum Kind: UInt8 {
        case falseValue, trueValue, integer, real, date, string, literal, data, array, dictionary
    }

    /// One object: its kind and two numbers whose meaning the kind gives (an integer's value; a
    /// real's or date's bit pattern; a string's, literal's or data's index in its list; a
    /// container's first reference and count of children, or of keys).
    struct Object {
        var kind: Kind
        var a: Int
        var b: Int
    }

    var objects: [Object] = []
    /// Every container's children's object numbers, each container's together.
    var references: [Int] = []
    var strings: [String] = []
    var literals: [StaticString] = []
    var datas: [Data] = []
    /// The children of the open containers so far, innermost last.
    var pending: [Int] = []
    /// The open containers: their object numbers, and where their children start in `pending`.
    var open: [Open] = []

    struct Open {
        var object: Int
        var start: Int
    }

    public init() {}

    /// A builder with room for `objects` objects before it grows (a message's own arrays
    /// otherwise grow a few times each).
    public init(objects: Int) {
        self.objects.reserveCapacity(objects)
        references.reserveCapacity(objects)
        pending.reserveCapacity(objects)
        literals.reserveCapacity(objects / 2)
        strings.reserveCapacity(objects / 4)
        open.reserveCapacity(8)
    }

    /// Numbers the next object, a child of the innermost open container if any.
    @inline(__always)
    private mutating func next(_ object: Object) {
        if !open.isEmpty {
            pending.append(objects.count)
        } else {
            precondition(objects.isEmpty, "a plist has one top object")
        }
        objects.append(object)
    }

    public mutating func add(_ value: Bool) { next(Object(kind: value ? .trueValue : .falseValue, a: 0, b: 0)) }
    public mutating func add(_ value: Int) { next(Object(kind: .integer, a: value, b: 0)) }
    public mutating func add(_ value: Double) { next(Object(kind: .real, a: Int(bitPattern: UInt(value.bitPattern)), b: 0)) }

    public mutating func add(_ value: Date) {
        next(Object(kind: .date, a: Int(bitPattern: UInt(value.timeIntervalSinceReferenceDate.bitPattern)), b: 0))
    }

    public mutating func add(_ value: String) {
        next(Object(kind: .string, a: strings.count, b: 0))
        strings.append(value)
    }

    /// A string known when the program was built (a message's kind).
    public mutating func add(literal value: StaticString) {
        next(Object(kind: .literal, a: literals.count, b: 0))
        literals.append(value)
    }

    public mutating func add(_ value: Data) {
        next(Object(kind: .data, a: datas.count, b: 0))
        datas.append(value)
    }

    /// Begins an array: its elements follow, then ``end()``.
    public mutating func beginArray() {
        let number = objects.count
        next(Object(kind: .array, a: 0, b: 0))
        open.append(Open(object: number, start: pending.count))
    }

    /// Begins a dictionary with `keys`, which must be in the order of their UTF-8 bytes: one
    /// value for each follows, in the same order, then ``end()``.
    public mutating func beginDictionary(keys: [StaticString]) {
        assert(zip(keys, keys.dropFirst()).allSatisfy { Self.precedes($0, $1) }, "keys out of order: \(keys)")
        beginDictionary(count: keys.count)
        for key in keys { add(literal: key) }
    }

    /// Whether `a`'s bytes come before `b`'s.
    private static func precedes(_ a: StaticString, _ b: StaticString) -> Bool {
        a.withUTF8Buffer { x in b.withUTF8Buffer { y in x.lexicographicallyPrecedes(y) } }
    }

    /// Begins a dictionary with `keys`, which must be in the order of their UTF-8 bytes.
    mutating func beginDictionary(stringKeys keys: [String]) {
        beginDictionary(count: keys.count)
        for key in keys { add(key) }
    }

    private mutating func beginDictionary(count: Int) {
        let number = objects.count
        next(Object(kind: .dictionary, a: 0, b: count))
        open.append(Open(object: number, start: pending.count))
    }

    /// Ends the innermost open container.
    public mutating func end() {
        guard let last = open.popLast() else { preconditionFailure("end() with no container open") }
        let number = last.object, start = last.start
        let children = pending.count - start
        objects[number].a = references.count
        if objects[number].kind == .dictionary {
            precondition(children == 2 * objects[number].b, "a dictionary needs one value for each key")
        } else {
            objects[number].b = children
        }
        for index in start..<pending.count { references.append(pending[index]) }
        pending.removeLast(children)
    }

    /// The bytes: the same as ``BinaryPropertyListWriter/write(_:)`` gives for the same tree.
    public func finish() -> [UInt8] {
        precondition(open.isEmpty && !objects.isEmpty, "finish() needs one whole top object")
        let referenceSize = Self.byteWidth(UInt64(objects.count))
        // All of it written at once into room that holds it: a 28 MB state grown by doubling
        // would be copied again (and its pages touched again) by the offset table's few bytes.
        return [UInt8](unsafeUninitializedCapacity: capacity()) { buffer, count in
            var output = Output(base: buffer.baseAddress!, capacity: buffer.count)
            output.bytes("bplist00")
            var offsets = [Int](repeating: 0, count: objects.count)
            for (number, object) in objects.enumerated() {
                offsets[number] = output.count
                write(object, referenceSize: referenceSize, to: &output)
            }
            let tableOffset = output.count
            let offsetSize = Self.byteWidth(UInt64(tableOffset))
            for offset in offsets {
                output.bigEndian(UInt64(offset), width: offsetSize)
            }
            output.bigEndian(0, width: 6)  // unused bytes, sort version
            output.byte(UInt8(offsetSize))
            output.byte(UInt8(referenceSize))
            output.bigEndian(UInt64(objects.count), width: 8)
            output.bigEndian(0, width: 8)  // top object
            output.bigEndian(UInt64(tableOffset), width: 8)
            count = output.count
        }
    }

    /// Room for the bytes: per object at most 8 of its offset, 1 of its marker, 9 of a length
    /// or 8 of an integer, real or date; 8 per reference; a string's UTF-16 at most twice its
    /// UTF-8; the header and trailer.
    private func capacity() -> Int {
        var size = 8 + 32 + 18 * objects.count + 8 * references.count
        for string in strings { size += 2 * string.utf8.count }
        for literal in literals { size += 2 * literal.utf8CodeUnitCount }
        for data in datas { size += data.count }
        return size
    }

    /// Where `finish` writes: bytes after `base`, each write checked against the room.
    private struct Output {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var count = 0

        @inline(__always)
        mutating func byte(_ value: UInt8) {
            precondition(count < capacity, "the plist outgrew the room reckoned for it")
            base[count] = value
            count += 1
        }

        mutating func bytes(_ source: UnsafeBufferPointer<UInt8>) {
            guard let start = source.baseAddress, !source.isEmpty else { return }
            precondition(source.count <= capacity - count, "the plist outgrew the room reckoned for it")
            (base + count).update(from: start, count: source.count)
            count += source.count
        }

        mutating func bytes(_ text: StaticString) {
            text.withUTF8Buffer { bytes($0) }
        }

        @inline(__always)
        mutating func bigEndian(_ value: UInt64, width: Int) {
            precondition(width <= capacity - count, "the plist outgrew the room reckoned for it")
            var shift = (width - 1) * 8
            while shift >= 0 {
                base[count] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
                count += 1
                shift -= 8
            }
        }

        /// A marker whose low nibble is `count`, or 0xF followed by `count` as an integer object.
        mutating func marker(_ kind: UInt8, count: Int) {
            if count < 0x0F {
                byte(kind | UInt8(count))
            } else {
                byte(kind | 0x0F)
                integer(count)
            }
        }

        mutating func integer(_ value: Int) {
            let width = value < 0 ? 8 : BinaryPropertyListBuilder.byteWidth(UInt64(value))
            byte(0x10 | UInt8(width.trailingZeroBitCount))
            bigEndian(UInt64(bitPattern: Int64(value)), width: width)
        }

        mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) {
            if UTF16BigEndian.isASCII(utf8) {
                marker(0x50, count: utf8.count)
                bytes(utf8)
            } else {
                let units = UTF16BigEndian.unitCount(utf8)
                marker(0x60, count: units)
                precondition(2 * units <= capacity - count, "the plist outgrew the room reckoned for it")
                guard let source = utf8.baseAddress else { return }
                let written = UTF16BigEndian.write(source, count: utf8.count, to: UnsafeMutableRawPointer(base + count))
                precondition(written == 2 * units, "the unit count does not match the text")
                count += written
            }
        }
    }

    private func write(_ object: Object, referenceSize: Int, to output: inout Output) {
        switch object.kind {
        case .falseValue: output.byte(0x08)
        case .trueValue: output.byte(0x09)
        case .integer: output.integer(object.a)
        case .real:
            output.byte(0x23)
            output.bigEndian(UInt64(UInt(bitPattern: object.a)), width: 8)
        case .date:
            output.byte(0x33)
            output.bigEndian(UInt64(UInt(bitPattern: object.a)), width: 8)
        case .string:
            var string = strings[object.a]
            string.withUTF8 { output.string($0) }
        case .literal:
            literals[object.a].withUTF8Buffer { output.string($0) }
        case .data:
            let data = datas[object.a]
            output.marker(0x40, count: data.count)
            data.withUnsafeBytes { output.bytes($0.bindMemory(to: UInt8.self)) }
        case .array, .dictionary:
            let count = object.kind == .array ? object.b : 2 * object.b
            output.marker(object.kind == .array ? 0xA0 : 0xD0, count: object.b)
            for index in object.a..<(object.a + count) {
                output.bigEndian(UInt64(references[index]), width: referenceSize)
            }
        }
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    static func byteWidth(_ value: UInt64) -> Int {
        switch value {
        case 0...0xFF: 1
        case 0...0xFFFF: 2
        case 0...0xFFFF_FFFF: 4
        default: 8
        }
    }
}
