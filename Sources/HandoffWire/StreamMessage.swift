/// An ERROR frame's code.
public struct StreamErrorCode: RawRepresentable, Equatable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `01`: no kept state with this activity id, revision and digest.
    public static let notFound = StreamErrorCode(rawValue: 1)
    /// `02`: an offset beyond the size, a malformed GET, or another frame type.
    public static let badRequest = StreamErrorCode(rawValue: 2)

    public var description: String {
        switch self {
        case .notFound: "not found"
        case .badRequest: "bad request"
        default: "error \(rawValue)"
        }
    }
}

/// The plaintext of one frame: a type byte and its body (docs/PROTOCOL.md, "Frames").
public enum StreamMessage: Equatable, Sendable {
    /// Client → server, the only frame a client sends: which state, and from which byte on.
    case get(activityID: String, revision: Int, offset: Int, digest: [UInt8])
    /// Server → client, before the DATA: the state's size and the offset the GET asked for.
    case start(size: Int, offset: Int)
    /// Server → client: 1 to 65,535 bytes of the state, in order.
    case data(ArraySlice<UInt8>)
    /// Server → client, instead of START; the server closes after it.
    case error(StreamErrorCode, message: String)

    public static let getType: UInt8 = 1
    public static let startType: UInt8 = 2
    public static let dataType: UInt8 = 3
    public static let errorType: UInt8 = 4

    /// Why a plaintext is not a well-formed message.
    public enum DecodeError: Error, Equatable, Sendable {
        case unknownType(UInt8)
        case malformed(type: UInt8, reason: String)
    }

    /// A GET for `request`, starting at `offset`.
    public static func get(_ request: StateRequest, offset: Int) -> StreamMessage {
        .get(activityID: request.activityID, revision: request.revision, offset: offset, digest: request.digest)
    }

    /// The frame's plaintext. A DATA body over 65,535 bytes, an ERROR message over 200 bytes
    /// (cut at a character boundary here) or a GET that cannot be sent is the caller's bug.
    public var plaintext: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .get(let activityID, let revision, let offset, let digest):
            out.reserveCapacity(49 + activityID.utf8.count)
            out.append(Self.getType)
            Self.appendBigEndian(UInt64(bitPattern: Int64(revision)), to: &out)
            Self.appendBigEndian(UInt64(offset), to: &out)
            out.append(contentsOf: digest)
            out.append(contentsOf: activityID.utf8)
        case .start(let size, let offset):
            out.reserveCapacity(17)
            out.append(Self.startType)
            Self.appendBigEndian(UInt64(size), to: &out)
            Self.appendBigEndian(UInt64(offset), to: &out)
        case .data(let body):
            precondition((1...StateStream.maximumDataLength).contains(body.count), "a DATA frame carries 1 to 65,535 bytes")
            out.reserveCapacity(1 + body.count)
            out.append(Self.dataType)
            out.append(contentsOf: body)
        case .error(let code, let message):
            out.append(Self.errorType)
            out.append(code.rawValue)
            var text = Substring(message)
            while text.utf8.count > StateStream.maximumErrorMessageLength { text = text.dropLast() }
            out.append(contentsOf: text.utf8)
        }
        return out
    }

    /// Reads a frame's plaintext strictly: lengths exact, the activity id valid UTF-8 of 1–255
    /// bytes, integers within `Int`. An ERROR's message is read leniently (it is only for logs):
    /// invalid UTF-8 is replaced and anything past 200 bytes is ignored. A DATA body is a slice
    /// of `plaintext`, not a copy.
    public init(plaintext: ArraySlice<UInt8>) throws(DecodeError) {
        guard let type = plaintext.first else { throw .malformed(type: 0, reason: "empty plaintext") }
        let body = plaintext.dropFirst()
        switch type {
        case Self.getType:
            let fixed = 8 + 8 + StateStream.digestLength
            let idLength = body.count - fixed
            guard idLength >= 1, idLength <= StateStream.maximumActivityIDLength else {
                throw .malformed(type: type, reason: "a GET's activity id must be 1 to 255 bytes")
            }
            let revision = Int64(bitPattern: Self.bigEndian(body, at: 0))
            guard let offset = Int(exactly: Self.bigEndian(body, at: 8)) else {
                throw .malformed(type: type, reason: "the offset is beyond any state")
            }
            let digestStart = body.startIndex + 16
            let idBytes = body[(digestStart + StateStream.digestLength)...]
            guard let activityID = String(validating: idBytes, as: UTF8.self) else {
                throw .malformed(type: type, reason: "the activity id is not UTF-8")
            }
            self = .get(
                activityID: activityID, revision: Int(revision), offset: offset,
                digest: Array(body[digestStart..<(digestStart + StateStream.digestLength)]))
        case Self.startType:
            guard body.count == 16 else { throw .malformed(type: type, reason: "a START body is 16 bytes") }
            guard let size = Int(exactly: Self.bigEndian(body, at: 0)),
                let offset = Int(exactly: Self.bigEndian(body, at: 8))
            else { throw .malformed(type: type, reason: "the size or offset is beyond any state") }
            self = .start(size: size, offset: offset)
        case Self.dataType:
            guard (1...StateStream.maximumDataLength).contains(body.count) else {
                throw .malformed(type: type, reason: "a DATA frame carries 1 to 65,535 bytes")
            }
            self = .data(body)
        case Self.errorType:
            guard let code = body.first else { throw .malformed(type: type, reason: "an ERROR has no code") }
            let text = body.dropFirst().prefix(StateStream.maximumErrorMessageLength)
            self = .error(StreamErrorCode(rawValue: code), message: String(decoding: text, as: UTF8.self))
        default:
            throw .unknownType(type)
        }
    }

    static func appendBigEndian(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// The big-endian `UInt64` at `offset` bytes into `bytes`.
    static func bigEndian(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        let start = bytes.startIndex + offset
        for byte in bytes[start..<(start + 8)] { value = value << 8 | UInt64(byte) }
        return value
    }
}
