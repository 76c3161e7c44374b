import FoundationEssentials

/// Decoding the objects of a validated layout, each once, within the limits.
extension BinaryPropertyListReader.Parser {
    /// The value of object `object`, found inside `parentDepth` containers.
    mutating func decodeObject(_ object: Int, parentDepth: Int) throws(PropertyListReadError) -> PropertyListValue {
        if let value = objects[object].value {
            guard parentDepth + objects[object].height <= limits.maxDepth else {
                throw .tooDeep(limit: limits.maxDepth)
            }
            return value
        }
        guard !objects[object].onPath else { throw .cycle(object: object) }

        let start = offsets[object]
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        var height = 0
        var expandedSize = 1
        var expandedBytes = 0
        let value: PropertyListValue

        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: value = .boolean(false)
            case 0x09: value = .boolean(true)
            default: throw .unsupportedObject(marker: marker, object: object)
            }
        case 0x1:
            value = .integer(try integer(object, marker: marker, at: start))
        case 0x2:
            guard marker == 0x22 || marker == 0x23 else {
                throw .unsupportedObject(marker: marker, object: object)
            }
            let width = 1 << low
            let content = try extent(object, from: start + 1, count: 1, unit: width)
            let bits = Self.unsigned(bytes, at: content.lowerBound, width: width)
            value = .real(width == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
        case 0x3:
            guard marker == 0x33 else { throw .unsupportedObject(marker: marker, object: object) }
            let content = try extent(object, from: start + 1, count: 1, unit: 8)
            let seconds = Double(bitPattern: Self.unsigned(bytes, at: content.lowerBound, width: 8))
            guard seconds.isFinite else { throw .invalidDate(object: object) }
            value = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (count, contentStart) = try length(object, low: low, at: start)
            value = .data(Data(bytes[try extent(object, from: contentStart, count: count, unit: 1)]))
            expandedBytes = count
        case 0x5:
            let (count, contentStart) = try length(object, low: low, at: start)
            let content = try extent(object, from: contentStart, count: count, unit: 1)
            // From the bytes where they lie: through a slice, the string is made the slow way.
            let string = bytes.withUnsafeBufferPointer { buffer -> String? in
                let ascii = UnsafeBufferPointer(rebasing: buffer[content])
                guard ascii.allSatisfy({ $0 < 0x80 }) else { return nil }
                return String(decoding: ascii, as: UTF8.self)
            }
            guard let string else { throw .invalidString(object: object) }
            value = .string(string)
            expandedBytes = count
        case 0x6:
            let (count, contentStart) = try length(object, low: low, at: start)
            let content = try extent(object, from: contentStart, count: count, unit: 2)
            let string = try utf16String(object, in: content)
            value = .string(string)
            expandedBytes = string.utf8.count
        case 0xA:
            let (count, contentStart) = try length(object, low: low, at: start)
            let references = try self.references(object, from: contentStart, count: count)
            let depth = try enter(object, parentDepth: parentDepth)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(count)
            for index in 0..<references.count {
                let reference = reference(index, of: references)
                elements.append(try decodeObject(reference, parentDepth: depth))
                let element = objects[reference]
                height = max(height, element.height)
                expandedSize = try grow(expandedSize, by: element.expandedSize)
                expandedBytes = try growBytes(expandedBytes, by: element.expandedBytes)
            }
            objects[object].onPath = false
            height += 1
            value = .array(elements)
        case 0xD:
            let (count, contentStart) = try length(object, low: low, at: start)
            let (doubled, overflow) = count.multipliedReportingOverflow(by: 2)
            guard !overflow else { throw .objectOutOfBounds(object: object) }
            let references = try self.references(object, from: contentStart, count: doubled)
            let depth = try enter(object, parentDepth: parentDepth)
            var entries: [String: PropertyListValue] = [:]
            entries.reserveCapacity(count)
            for index in 0..<count {
                let keyReference = reference(index, of: references)
                let keyMarker = bytes[offsets[keyReference]] >> 4
                guard keyMarker == 0x5 || keyMarker == 0x6 else { throw .nonStringKey(object: object) }
                guard case .string(let key) = try decodeObject(keyReference, parentDepth: depth) else {
                    throw .nonStringKey(object: object)
                }
                expandedSize = try grow(expandedSize, by: objects[keyReference].expandedSize)
                expandedBytes = try growBytes(expandedBytes, by: objects[keyReference].expandedBytes)
                let valueReference = reference(count + index, of: references)
                let element = try decodeObject(valueReference, parentDepth: depth)
                let valueObject = objects[valueReference]
                height = max(height, valueObject.height)
                expandedSize = try grow(expandedSize, by: valueObject.expandedSize)
                expandedBytes = try growBytes(expandedBytes, by: valueObject.expandedBytes)
                guard entries.updateValue(element, forKey: key) == nil else {
                    throw .duplicateKey(key, object: object)
                }
            }
            objects[object].onPath = false
            height += 1
            value = .dictionary(entries)
        default:
            throw .unsupportedObject(marker: marker, object: object)
        }

        // A lone string or data object over the budget is caught here; containers add up as they go.
        guard expandedBytes <= byteBudget else { throw .tooManyExpandedBytes(limit: byteBudget) }
        objects[object] = Decoded(
            value: value, height: height, expandedSize: expandedSize, expandedBytes: expandedBytes, onPath: false)
        return value
    }

    /// Marks container `object` as being expanded and returns its depth, or throws when that is too deep.
    mutating func enter(_ object: Int, parentDepth: Int) throws(PropertyListReadError) -> Int {
        let depth = parentDepth + 1
        guard depth <= limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
        objects[object].onPath = true
        return depth
    }

    func grow(_ size: Int, by added: Int) throws(PropertyListReadError) -> Int {
        let (total, overflow) = size.addingReportingOverflow(added)
        guard !overflow, total <= limits.maxExpandedObjects else {
            throw .tooManyExpandedObjects(limit: limits.maxExpandedObjects)
        }
        return total
    }

    func growBytes(_ size: Int, by added: Int) throws(PropertyListReadError) -> Int {
        let (total, overflow) = size.addingReportingOverflow(added)
        guard !overflow, total <= byteBudget else { throw .tooManyExpandedBytes(limit: byteBudget) }
        return total
    }

    /// The byte range of `count` items of `unit` bytes starting at `position`, when it lies inside the object area.
    func extent(_ object: Int, from position: Int, count: Int, unit: Int) throws(PropertyListReadError) -> Range<Int> {
        let (size, sizeOverflow) = count.multipliedReportingOverflow(by: unit)
        let (end, endOverflow) = position.addingReportingOverflow(size)
        guard !sizeOverflow, !endOverflow, count >= 0, position <= end, end <= objectAreaEnd else {
            throw .objectOutOfBounds(object: object)
        }
        return position..<end
    }

    /// The element count of a data, string or container object, and where its content starts.
    ///
    /// A low nibble below 15 is the count itself; 15 means an integer object with the count follows.
    func length(_ object: Int, low: Int, at start: Int) throws(PropertyListReadError) -> (count: Int, contentStart: Int) {
        if low < 0x0F {
            return (low, start + 1)
        }
        let markerRange = try extent(object, from: start + 1, count: 1, unit: 1)
        let intMarker = bytes[markerRange.lowerBound]
        guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
            throw .unsupportedObject(marker: intMarker, object: object)
        }
        let width = 1 << Int(intMarker & 0x0F)
        let content = try extent(object, from: markerRange.upperBound, count: 1, unit: width)
        let count = Self.unsigned(bytes, at: content.lowerBound, width: width)
        guard count <= UInt64(objectAreaEnd) else { throw .objectOutOfBounds(object: object) }
        return (Int(count), content.upperBound)
    }

    /// Where a container's object references lie, each checked to name an existing object:
    /// read again in place (`reference(_:of:)`) rather than copied out.
    struct References {
        let start: Int
        let count: Int
    }

    /// The `count` object references of a container, each checked to name an existing object.
    func references(_ object: Int, from position: Int, count: Int) throws(PropertyListReadError) -> References {
        let content = try extent(object, from: position, count: count, unit: referenceSize)
        var cursor = content.lowerBound
        while cursor < content.upperBound {
            let reference = Self.unsigned(bytes, at: cursor, width: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw .referenceOutOfRange(object: object, reference: Int(clamping: reference), count: objectCount)
            }
            cursor += referenceSize
        }
        return References(start: content.lowerBound, count: count)
    }

    /// The `index`th of `references`, checked already.
    func reference(_ index: Int, of references: References) -> Int {
        Int(Self.unsigned(bytes, at: references.start + index * referenceSize, width: referenceSize))
    }

    func integer(_ object: Int, marker: UInt8, at start: Int) throws(PropertyListReadError) -> Int {
        let sizeLog = Int(marker & 0x0F)
        guard sizeLog <= 4 else { throw .unsupportedObject(marker: marker, object: object) }
        let width = 1 << sizeLog
        let content = try extent(object, from: start + 1, count: 1, unit: width)
        switch width {
        case 1, 2, 4:
            return Int(Self.unsigned(bytes, at: content.lowerBound, width: width))
        case 8:
            return Int(Int64(bitPattern: Self.unsigned(bytes, at: content.lowerBound, width: 8)))
        default:
            // 128-bit two's complement: accepted when the high half only extends the low half's sign.
            let high = Self.unsigned(bytes, at: content.lowerBound, width: 8)
            let low = Self.unsigned(bytes, at: content.lowerBound + 8, width: 8)
            let lowIsNegative = low >> 63 == 1
            guard high == (lowIsNegative ? UInt64.max : 0) else {
                throw .integerOutOfRange(object: object)
            }
            return Int(Int64(bitPattern: low))
        }
    }

    /// Decodes big-endian UTF-16, refusing lone surrogates instead of repairing them.
    func utf16String(_ object: Int, in content: Range<Int>) throws(PropertyListReadError) -> String {
        let string = bytes.withUnsafeBufferPointer { UTF16BigEndian.decode($0, content) }
        guard let string else { throw .invalidString(object: object) }
        return string
    }
}
