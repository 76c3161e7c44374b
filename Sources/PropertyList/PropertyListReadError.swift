/// Why ``BinaryPropertyListReader`` refused a byte sequence.
///
/// Object numbers are indices into the plist's offset table, so a case can be
/// matched against a hex dump of the input.
public enum PropertyListReadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input is larger than the reader's byte limit.
    case tooLarge(bytes: Int, limit: Int)
    /// The input does not start with `bplist00`.
    case notBinaryPlist
    /// The input is too short to hold a header, one object, an offset table and the 32-byte trailer.
    case truncated(bytes: Int)
    /// The trailer's offset-table integer size is not 1 through 8.
    case invalidOffsetSize(Int)
    /// The trailer's object-reference size is not 1 through 8.
    case invalidReferenceSize(Int)
    /// The trailer claims more objects than the limit allows.
    case tooManyObjects(count: Int, limit: Int)
    /// The trailer's object count does not fit the file (zero, or more objects than bytes to hold them).
    case invalidObjectCount(Int)
    /// The trailer's top object index is not below the object count.
    case topObjectOutOfRange(index: Int, count: Int)
    /// The offset table does not lie between the objects and the trailer.
    case offsetTableOutOfRange(offset: Int)
    /// An object's offset points outside the object area (between the header and the offset table).
    case offsetOutOfRange(object: Int, offset: Int)
    /// An object's length runs past the end of the object area.
    case objectOutOfBounds(object: Int)
    /// A container refers to an object number not below the object count.
    case referenceOutOfRange(object: Int, reference: Int, count: Int)
    /// A container contains itself, directly or through other containers.
    case cycle(object: Int)
    /// Containers are nested deeper than the limit.
    case tooDeep(limit: Int)
    /// Shared objects expand to more values than the limit (a small file that would unfold enormously).
    case tooManyExpandedObjects(limit: Int)
    /// Strings and data, counted once per use of a shared object, come to more bytes than the read's budget.
    case tooManyExpandedBytes(limit: Int)
    /// An object has a marker this reader does not accept: null, fill, UID, set, ordered set, or an unknown one.
    case unsupportedObject(marker: UInt8, object: Int)
    /// A dictionary has a key that is not a string.
    case nonStringKey(object: Int)
    /// A dictionary has the same key twice.
    case duplicateKey(String, object: Int)
    /// A string is not valid: non-ASCII bytes in an ASCII string, or a lone surrogate in a UTF-16 string.
    case invalidString(object: Int)
    /// An integer does not fit in a signed 64-bit `Int`.
    case integerOutOfRange(object: Int)
    /// A date is infinite or not a number.
    case invalidDate(object: Int)

    /// What went wrong, in one sentence.
    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            "The property list is \(bytes) bytes, more than the limit of \(limit)."
        case .notBinaryPlist:
            "The data is not a binary property list: it does not start with \"bplist00\"."
        case .truncated(let bytes):
            "The binary property list is truncated: \(bytes) bytes cannot hold a header, an object and a trailer."
        case .invalidOffsetSize(let size):
            "The trailer gives an offset size of \(size) bytes; it must be 1 through 8."
        case .invalidReferenceSize(let size):
            "The trailer gives an object-reference size of \(size) bytes; it must be 1 through 8."
        case .tooManyObjects(let count, let limit):
            "The property list has \(count) objects, more than the limit of \(limit)."
        case .invalidObjectCount(let count):
            "The trailer's object count of \(count) does not fit the file."
        case .topObjectOutOfRange(let index, let count):
            "The trailer names object \(index) as the top object, but there are only \(count) objects."
        case .offsetTableOutOfRange(let offset):
            "The offset table at byte \(offset) does not lie between the objects and the trailer."
        case .offsetOutOfRange(let object, let offset):
            "Object \(object) is said to start at byte \(offset), which is outside the object area."
        case .objectOutOfBounds(let object):
            "Object \(object) runs past the end of the object area."
        case .referenceOutOfRange(let object, let reference, let count):
            "Object \(object) refers to object \(reference), but there are only \(count) objects."
        case .cycle(let object):
            "Object \(object) contains itself; reference cycles are not allowed."
        case .tooDeep(let limit):
            "Containers are nested more than \(limit) deep."
        case .tooManyExpandedObjects(let limit):
            "Shared objects expand to more than \(limit) values."
        case .tooManyExpandedBytes(let limit):
            "Strings and data, counted once per use of a shared object, come to more than \(limit) bytes."
        case .unsupportedObject(let marker, let object):
            "Object \(object) has marker 0x\(String(marker, radix: 16, uppercase: true)), "
                + "which is not one of the eight property-list types (sets, UIDs and null are not accepted)."
        case .nonStringKey(let object):
            "Dictionary object \(object) has a key that is not a string."
        case .duplicateKey(let key, let object):
            "Dictionary object \(object) has the key \(key.debugDescription) more than once."
        case .invalidString(let object):
            "String object \(object) is not valid ASCII or UTF-16."
        case .integerOutOfRange(let object):
            "Integer object \(object) does not fit in a signed 64-bit integer."
        case .invalidDate(let object):
            "Date object \(object) is infinite or not a number."
        }
    }
}
