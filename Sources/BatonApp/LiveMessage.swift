import PropertyList

/// One message of a live session on a continuation stream (docs/PROTOCOL.md, section 19): a
/// binary property list dictionary whose `kind` says which.
public enum LiveMessage: Equatable, Sendable {
    /// The opener's first message: whether it leads (it continued the session and has the
    /// newest state) or follows; `activityID` is the activity the leader publishes, which a
    /// follower opens again after a drop; `mayTake`: a follower that may take the baton;
    /// `peerName`: the opener's name as its activities give it (`alice@laptop`).
    case hello(leads: Bool, activityID: String?, mayTake: Bool, peerName: String?)
    /// The whole state, as the activity type's userInfo; revision `revision`.
    case state(revision: Int, activityType: String, userInfo: [String: PropertyListValue])
    /// What changed since revision `base`: `removed` lines from `start` became `lines`, the
    /// text now has `lineCount` lines, and the cursor is at `cursor`.
    case change(revision: Int, base: Int, start: Int, removed: Int, lines: [String], lineCount: Int, cursor: TextPosition)
    /// The follower asks for the baton.
    case take
    /// The leader hands the baton over after its last change: the receiver leads from
    /// revision `revision`, with the cursor and undo history (the userInfo's `undoHistory`).
    case given(revision: Int, cursor: TextPosition, undoHistory: PropertyListValue?)
    /// The follower's state does not fit what came: send the whole state again.
    case resync
    /// The session moved to `peerName`, whom this follower is not following: the stream ends.
    case moved(peerName: String)

    /// The largest message read: a 16 MB text with room to spare.
    public static let maximumBytes = 64 << 20

    /// The message as bytes for the stream.
    public var bytes: [UInt8] {
        BinaryPropertyListWriter().write(.dictionary(dictionary))
    }

    private var dictionary: [String: PropertyListValue] {
        switch self {
        case .hello(let leads, let activityID, let mayTake, let peerName):
            var d: [String: PropertyListValue] = ["kind": "hello", "leads": .boolean(leads), "mayTake": .boolean(mayTake)]
            if let activityID { d["activityID"] = .string(activityID) }
            if let peerName { d["peerName"] = .string(peerName) }
            return d
        case .state(let revision, let type, let userInfo):
            return ["kind": "state", "revision": .integer(revision), "activityType": .string(type), "userInfo": .dictionary(userInfo)]
        case .change(let revision, let base, let start, let removed, let lines, let lineCount, let cursor):
            return [
                "kind": "change", "revision": .integer(revision), "base": .integer(base), "start": .integer(start),
                "removed": .integer(removed), "lines": .array(lines.map(PropertyListValue.string)),
                "lineCount": .integer(lineCount), "cursorLine": .integer(cursor.line), "cursorColumn": .integer(cursor.column),
            ]
        case .take:
            return ["kind": "take"]
        case .given(let revision, let cursor, let history):
            var d: [String: PropertyListValue] = [
                "kind": "given", "revision": .integer(revision), "cursorLine": .integer(cursor.line),
                "cursorColumn": .integer(cursor.column),
            ]
            if let history { d["undoHistory"] = history }
            return d
        case .resync:
            return ["kind": "resync"]
        case .moved(let peerName):
            return ["kind": "moved", "peerName": .string(peerName)]
        }
    }

    /// Why bytes are not a live message.
    public enum ReadError: Error, Equatable {
        /// Not a binary property list within the limits.
        case notAPropertyList
        /// A known kind without a key it needs, or a key of another type.
        case malformed(String)
        /// A kind this program does not know: skipped, not an error of the stream.
        case unknownKind
    }

    /// Reads a message strictly: hostile bytes are an error, never a crash.
    public init(bytes: [UInt8]) throws(ReadError) {
        let limits = BinaryPropertyListReader.Limits(maxObjects: 1 << 21, maxBytes: Self.maximumBytes)
        guard let value = try? BinaryPropertyListReader(limits: limits).read(bytes), case .dictionary(let d) = value else {
            throw .notAPropertyList
        }
        func int(_ key: String) throws(ReadError) -> Int {
            guard let value = d[key]?.intValue, value >= 0 else { throw .malformed("\(key) is not a count") }
            return value
        }
        func cursor() throws(ReadError) -> TextPosition {
            TextPosition(line: try int("cursorLine"), column: try int("cursorColumn"))
        }
        switch d["kind"]?.stringValue {
        case "hello":
            guard case .boolean(let leads) = d["leads"] else { throw .malformed("hello without leads") }
            var mayTake = false
            switch d["mayTake"] {
            case nil: break
            case .boolean(let value): mayTake = value
            default: throw .malformed("mayTake is not a boolean")
            }
            self = .hello(leads: leads, activityID: d["activityID"]?.stringValue, mayTake: mayTake, peerName: d["peerName"]?.stringValue)
        case "state":
            guard let type = d["activityType"]?.stringValue, case .dictionary(let info) = d["userInfo"] else {
                throw .malformed("state without activityType or userInfo")
            }
            self = .state(revision: try int("revision"), activityType: type, userInfo: info)
        case "change":
            guard case .array(let values) = d["lines"] else { throw .malformed("change without lines") }
            var lines: [String] = []
            lines.reserveCapacity(values.count)
            for value in values {
                guard let line = value.stringValue, !line.contains("\n") else { throw .malformed("a line that is not one line") }
                lines.append(line)
            }
            self = .change(
                revision: try int("revision"), base: try int("base"), start: try int("start"), removed: try int("removed"),
                lines: lines, lineCount: try int("lineCount"), cursor: try cursor())
        case "take":
            self = .take
        case "given":
            self = .given(revision: try int("revision"), cursor: try cursor(), undoHistory: d["undoHistory"])
        case "resync":
            self = .resync
        case "moved":
            guard let name = d["peerName"]?.stringValue else { throw .malformed("moved without peerName") }
            self = .moved(peerName: name)
        case nil:
            throw .malformed("no kind")
        default:
            throw .unknownKind
        }
    }
}
