/// The fixed numbers of a continuation stream (docs/PROTOCOL.md section 10, "Continuation streams").
public enum ContinuationStreamLimits {
    /// Credit each direction starts with and never exceeds: 1 MiB of MESSAGE frame plaintext.
    public static let window = 1 << 20
    /// A receiver grants credit back once at least this much is due: a quarter of the window.
    public static let grantStep = window / 4
    /// The longest message, in bytes: 32 MiB.
    public static let maximumMessage = 32 << 20
    /// The most message bytes one MESSAGE frame carries (its plaintext is 65,536 bytes).
    public static let maximumChunk = StateStream.maximumPlaintext - 2
    /// A side that wrote nothing for this long writes KEEPALIVE.
    public static let keepAliveInterval: Duration = .seconds(5)
    /// A side that received nothing for this long ends the stream as lost.
    public static let silenceLimit: Duration = .seconds(15)
    /// The client's wait for ACCEPT or ERROR after its OPEN.
    public static let answerLimit: Duration = .seconds(5)
    /// A side that wrote CLOSE waits this long for the other's.
    public static let closeLimit: Duration = .seconds(2)
    /// Continuation streams a server carries at once, apart from its fetches.
    public static let maximumStreams = 8
}

extension StreamErrorCode {
    /// `03`: the source no longer holds the activity an OPEN names.
    public static let notHeld = StreamErrorCode(rawValue: 3)
    /// `04`: the activity (or the program) takes no continuation streams.
    public static let notSupported = StreamErrorCode(rawValue: 4)
    /// `05`: the server already carries its most continuation streams.
    public static let busy = StreamErrorCode(rawValue: 5)
}

/// The plaintext of one frame of a continuation stream: a type byte and its body.
public enum ContinuationFrame: Equatable, Sendable {
    /// Client → server, instead of GET: open a stream to this activity.
    case open(activityID: String)
    /// Server → client: the stream is open.
    case accept
    /// Either way: part of a message; `more` says that more of the same message follows.
    case message(more: Bool, ArraySlice<UInt8>)
    /// Either way: this many more bytes of MESSAGE plaintext may be sent.
    case credit(Int)
    /// Either way: nothing to say, but the link lives.
    case keepAlive
    /// Either way: this side sends nothing more.
    case close
    /// Either way: a refusal or a broken rule; the sender closes after it.
    case error(StreamErrorCode, message: String)

    public static let openType: UInt8 = 5
    public static let acceptType: UInt8 = 6
    public static let messageType: UInt8 = 7
    public static let creditType: UInt8 = 8
    public static let keepAliveType: UInt8 = 9
    public static let closeType: UInt8 = 10

    /// Why a plaintext is not a well-formed continuation frame.
    public enum DecodeError: Error, Equatable, Sendable {
        case unknownType(UInt8)
        case malformed(type: UInt8, reason: String)
    }

    /// The cost of a MESSAGE frame against the credit: its whole plaintext.
    public static func cost(ofChunk count: Int) -> Int { count + 2 }

    /// The frame's plaintext. An OPEN that cannot be sent, a chunk over 65,534 bytes or a credit
    /// outside 1–1,048,576 is the caller's bug.
    public var plaintext: [UInt8] {
        switch self {
        case .open(let activityID):
            precondition((1...StateStream.maximumActivityIDLength).contains(activityID.utf8.count), "an OPEN names 1 to 255 bytes")
            return [Self.openType] + Array(activityID.utf8)
        case .accept:
            return [Self.acceptType]
        case .message(let more, let chunk):
            precondition(chunk.count <= ContinuationStreamLimits.maximumChunk, "a MESSAGE frame carries at most 65,534 bytes")
            var out: [UInt8] = []
            out.reserveCapacity(2 + chunk.count)
            out.append(Self.messageType)
            out.append(more ? 1 : 0)
            out.append(contentsOf: chunk)
            return out
        case .credit(let amount):
            precondition((1...ContinuationStreamLimits.window).contains(amount), "a CREDIT grants 1 to 1,048,576 bytes")
            var out = [Self.creditType]
            StreamMessage.appendBigEndian(UInt32(amount), to: &out)
            return out
        case .keepAlive:
            return [Self.keepAliveType]
        case .close:
            return [Self.closeType]
        case .error(let code, let message):
            return StreamMessage.error(code, message: message).plaintext
        }
    }

    /// Reads a frame's plaintext strictly; every malformed input throws. A MESSAGE's bytes are a
    /// slice of `plaintext`, not a copy. An ERROR's message is read as for a fetch (lenient: for logs).
    public init(plaintext: ArraySlice<UInt8>) throws(DecodeError) {
        guard let type = plaintext.first else { throw .malformed(type: 0, reason: "empty plaintext") }
        let body = plaintext.dropFirst()
        switch type {
        case Self.openType:
            guard (1...StateStream.maximumActivityIDLength).contains(body.count) else {
                throw .malformed(type: type, reason: "an OPEN's activity id must be 1 to 255 bytes")
            }
            guard let activityID = String(validating: body, as: UTF8.self) else {
                throw .malformed(type: type, reason: "the activity id is not UTF-8")
            }
            self = .open(activityID: activityID)
        case Self.acceptType, Self.keepAliveType, Self.closeType:
            guard body.isEmpty else { throw .malformed(type: type, reason: "frame type \(type) has no body") }
            self = type == Self.acceptType ? .accept : type == Self.keepAliveType ? .keepAlive : .close
        case Self.messageType:
            guard let flags = body.first else { throw .malformed(type: type, reason: "a MESSAGE has no flags") }
            guard flags <= 1 else { throw .malformed(type: type, reason: "MESSAGE flags \(flags) are neither 00 nor 01") }
            guard body.count - 1 <= ContinuationStreamLimits.maximumChunk else {
                throw .malformed(type: type, reason: "a MESSAGE frame carries at most 65,534 bytes")
            }
            self = .message(more: flags == 1, body.dropFirst())
        case Self.creditType:
            guard body.count == 4 else { throw .malformed(type: type, reason: "a CREDIT body is 4 bytes") }
            let amount = body.reduce(0) { $0 << 8 | Int($1) }
            guard (1...ContinuationStreamLimits.window).contains(amount) else {
                throw .malformed(type: type, reason: "a CREDIT of \(amount) bytes is outside 1–1,048,576")
            }
            self = .credit(amount)
        case StreamMessage.errorType:
            guard case .error(let code, let message) = try? StreamMessage(plaintext: plaintext) else {
                throw .malformed(type: type, reason: "an ERROR has no code")
            }
            self = .error(code, message: message)
        default:
            throw .unknownType(type)
        }
    }
}
