import Handoff
import PropertyList
import HandoffWire

extension Session {
    /// The activity type of `dev.baton.counter` sessions.
    public static let counterActivityType = "dev.baton.counter"
    /// The activity type of `dev.baton.editing` sessions.
    public static let editingActivityType = "dev.baton.editing"

    /// The activity type this session publishes.
    public var activityType: String {
        switch self {
        case .counter: Self.counterActivityType
        case .editor: Self.editingActivityType
        }
    }

    /// What a person sees in a peer's nearby list: "Counter: 5", "Editing notes.txt", "Editing (unnamed)".
    public var title: String {
        switch self {
        case .counter(let state):
            "Counter: \(state.count)"
        case .editor(let state):
            "Editing \(state.fileName ?? "(unnamed)")"
        }
    }

    /// The state a peer needs to continue, as docs/PROTOCOL.md's activity types define it.
    public var userInfo: [String: PropertyListValue] {
        switch self {
        case .counter(let state):
            return ["count": .integer(state.count)]
        case .editor(let state):
            var info: [String: PropertyListValue] = [
                "text": .string(state.buffer.text),
                "cursorLine": .integer(state.buffer.cursor.line),
                "cursorColumn": .integer(state.buffer.cursor.column),
            ]
            if let fileName = state.fileName { info["fileName"] = .string(fileName) }
            if let (path, digest) = Self.published(state) {
                info["filePath"] = .string(path)
                if let digest { info["fileDigest"] = .integer(Int(Int64(bitPattern: digest))) }
            }
            if state.lineEnding == .crlf { info["lineEnding"] = .string(LineEnding.crlf.rawValue) }
            if let history = state.history.userInfoValue { info["undoHistory"] = history }
            if let mark = state.mark, state.selection != nil {
                info["markLine"] = .integer(mark.line)
                info["markColumn"] = .integer(mark.column)
            }
            if let search = state.lastSearch { info["searchText"] = .string(search) }
            if state.searchOptions.caseSensitive { info["searchCaseSensitive"] = .boolean(true) }
            if state.searchOptions.regularExpression { info["searchRegexp"] = .boolean(true) }
            if state.display.lineNumbers { info["lineNumbers"] = .boolean(true) }
            if state.display.softWrap { info["softWrap"] = .boolean(true) }
            if state.display.constantShow { info["constantShow"] = .boolean(true) }
            return info
        }
    }

    /// Builds the session a continued activity describes, or nil for another type or missing state.
    ///
    /// A counter needs an integer `count`. An editor needs a string `text`; `cursorLine` and
    /// `cursorColumn` place the cursor, clamped into the text (0 when absent). `fileName` is
    /// reduced to a safe base name (`"../../etc/passwd"` → `"passwd"`; `""`, `"."`, `".."` → none),
    /// `filePath` stays nil, so Ctrl-S saves to that base name in the current directory (asking
    /// first when a different file is there) or asks for a name. The continued buffer counts as
    /// unsaved here unless it is empty. `lineEnding` `"crlf"` makes saves write `\r\n`; anything
    /// else, or none, `\n`. `peer`, the name shown as where it came from, is kept
    /// made visible (`PeerText.visible`). `undoHistory` becomes what Ctrl-Z undoes when it
    /// checks out against the text (`EditHistory.received`); otherwise there is nothing to undo.
    /// `markLine` and `markColumn` select from the mark (clamped) to the cursor; `searchText`
    /// and its options are what the next search again looks for; `lineNumbers` and `softWrap`
    /// show the text as the sender did.
    public init?(activityType: String, userInfo: [String: PropertyListValue], from peer: String?) {
        switch activityType {
        case Self.counterActivityType:
            guard let count = userInfo["count"]?.intValue else { return nil }
            self = .counter(CounterState(count: count))
        case Self.editingActivityType:
            guard let text = userInfo["text"]?.stringValue else { return nil }
            let cursor = TextPosition(
                line: userInfo["cursorLine"]?.intValue ?? 0,
                column: userInfo["cursorColumn"]?.intValue ?? 0)
            let buffer = TextBuffer(text: text, cursor: cursor)
            var state = EditorState(
                buffer: buffer,
                filePath: nil,
                fileName: userInfo["fileName"]?.stringValue.flatMap(FileNames.safeBaseName(of:)),
                isDirty: !buffer.isEmpty,
                continuedFrom: peer.map(PeerText.visible),
                lineEnding: userInfo["lineEnding"]?.stringValue == LineEnding.crlf.rawValue ? .crlf : .lf)
            state.history = EditHistory.received(userInfo["undoHistory"], for: buffer)
            state.pathHint = userInfo["filePath"]?.stringValue.flatMap(FileNames.shareablePath)
            if state.pathHint != nil, let digest = userInfo["fileDigest"]?.intValue {
                state.digestHint = UInt64(bitPattern: Int64(digest))
            }
            if let line = userInfo["markLine"]?.intValue, let column = userInfo["markColumn"]?.intValue {
                var clamped = buffer
                clamped.move(to: TextPosition(line: line, column: column))
                if clamped.cursor != buffer.cursor { state.mark = clamped.cursor }
            }
            state.lastSearch = userInfo["searchText"]?.stringValue
            state.searchOptions = SearchOptions(
                caseSensitive: userInfo["searchCaseSensitive"]?.boolValue ?? false,
                regularExpression: userInfo["searchRegexp"]?.boolValue ?? false)
            state.display = EditorDisplay(
                lineNumbers: userInfo["lineNumbers"]?.boolValue ?? false,
                softWrap: userInfo["softWrap"]?.boolValue ?? false,
                constantShow: userInfo["constantShow"]?.boolValue ?? false)
            self = .editor(state)
        default:
            return nil
        }
    }
}

extension Session {
    /// The `filePath` and `fileDigest` an editor publishes: its own file's, when its path may
    /// travel; else, while it has no file of its own, the ones it was continued with.
    static func published(_ state: EditorState) -> (path: String, digest: UInt64?)? {
        if let filePath = state.filePath {
            guard let path = FileNames.shareablePath(filePath) else { return nil }
            return (path, state.disk?.digest)
        }
        return state.pathHint.map { ($0, state.digestHint) }
    }
}
