/// The state of an editing session: the text and cursor, how it is scrolled, and the file it belongs to.
public struct EditorState: Equatable, Sendable {
    /// The text and the cursor.
    public var buffer: TextBuffer
    /// What part of the text the text area shows; `BatonApp.update` keeps the cursor inside it.
    public var scroll: ScrollOffset
    /// Where Ctrl-S writes, as given on this machine; nil when no file was chosen here.
    public var filePath: String?
    /// The name shown in the title and published as userInfo `fileName`; a display name only.
    public var fileName: String?
    /// Whether the text changed since it was loaded or last saved here.
    public var isDirty: Bool
    /// The peer this buffer was continued from, when it came from one.
    public var continuedFrom: String?
    /// How the file's lines end on disk; saves write this style.
    public var lineEnding: LineEnding
    /// Whether the file could not be written when it was opened (no write permission); the
    /// title says `[read-only]` and a save asks first.
    public var isReadOnly: Bool
    /// What Ctrl-Z undoes and Ctrl-Y redoes.
    public var history = EditHistory()
    /// The lines Ctrl-K cut and Ctrl-U pastes.
    public var cutLines: [String] = []
    /// Whether the last key was Ctrl-K, so the next one adds its line to `cutLines`.
    public var isGatheringCut = false
    /// Whether the last key was Esc, so U undoes (Alt-U arrives as Esc, U).
    public var isEscapePending = false
    /// What the last search looked for (Ctrl-F with an empty answer, or F3, looks again).
    public var lastSearch: String?
    /// How searches match: case, regular expressions (Alt-C and Alt-R in the search prompt).
    public var searchOptions = SearchOptions()
    /// What the last replace put in (the "Replace with" prompt offers it again).
    public var lastReplacement: String?
    /// The other end of the selection, the cursor being this end; nil when nothing is
    /// selected. Ctrl-6 (or Alt-A) sets it at the cursor, Shift with a motion key too.
    public var mark: TextPosition?
    /// How the text is shown: line numbers, soft wrap, the cursor's position (Alt-N, Alt-S, Alt-C).
    public var display = EditorDisplay()
    /// Whether `mark` was set by Shift with a motion key: then a motion without Shift ends the
    /// selection, as in most editors (a mark set with Ctrl-6 stays until Ctrl-6 again).
    public var isShiftMark = false
    /// What the last search or go-to found ("3 of 17", "not found"), shown in the status bar
    /// until the next key.
    public var findResult: String?
    /// The file at `filePath` as it was read or last saved here; nil when none was (a new file,
    /// a continued session). Ctrl-S replaces it without asking while the disk still matches.
    public var disk: FileStamp?
    /// For a continued text not saved here yet: where the sender had it (userInfo `filePath`,
    /// relative to its folder) and its bytes there (`fileDigest`), sent on as they came until a
    /// save here gives the editor a file of its own (docs/PROTOCOL.md §11).
    public var pathHint: String?
    public var digestHint: UInt64?

    /// An editor state; `fileName` defaults to the last component of `filePath`.
    public init(
        buffer: TextBuffer = TextBuffer(),
        scroll: ScrollOffset = ScrollOffset(),
        filePath: String? = nil,
        fileName: String? = nil,
        isDirty: Bool = false,
        continuedFrom: String? = nil,
        lineEnding: LineEnding = .lf,
        isReadOnly: Bool = false,
        disk: FileStamp? = nil
    ) {
        self.buffer = buffer
        self.scroll = scroll
        self.filePath = filePath
        self.fileName = fileName ?? filePath.flatMap(FileNames.lastComponent(of:))
        self.isDirty = isDirty
        self.continuedFrom = continuedFrom
        self.lineEnding = lineEnding
        self.isReadOnly = isReadOnly
        self.disk = disk
    }

    /// A clean editor holding `text` with the cursor at the start, for the file at `filePath`
    /// (nil: a new, unnamed buffer).
    public init(
        text: String, filePath: String?, fileName: String? = nil, lineEnding: LineEnding = .lf,
        isReadOnly: Bool = false, disk: FileStamp? = nil
    ) {
        self.init(
            buffer: TextBuffer(text: text), filePath: filePath, fileName: fileName, lineEnding: lineEnding,
            isReadOnly: isReadOnly, disk: disk)
    }

    /// The same state with the arrays an edit writes to (the text's, the undo history's) of its
    /// own: for a snapshot kept beside the editor, made off the main actor, so that the
    /// editor's next key does not copy them (`TextRope.unshared`).
    public func unshared() -> EditorState {
        var copy = self
        copy.buffer = buffer.unshared()
        copy.history = history.unshared()
        return copy
    }

    /// The selected text's bounds, first then last, when something is selected.
    public var selection: (start: TextPosition, end: TextPosition)? {
        guard let mark, mark != buffer.cursor else { return nil }
        return mark < buffer.cursor ? (mark, buffer.cursor) : (buffer.cursor, mark)
    }

    /// The name the title shows: the path as given when it has a folder in it (`docs/notes.txt`,
    /// `/tmp/notes.txt`), since the base name alone would not say which file it is; otherwise
    /// `fileName`.
    public var titleName: String? {
        // Bytes, not Foundation's `contains`: the title is drawn on every key.
        let slash = UInt8(ascii: "/")
        if let filePath, filePath.utf8.contains(slash),
           !filePath.hasPrefix("./") || filePath.utf8.dropFirst(2).contains(slash) {
            return filePath
        }
        return fileName
    }

    /// Where Ctrl-S saves without asking: `filePath`, or else `fileName` in the current directory
    /// when it is a plain, visible base name (a name from a peer never carries a path here);
    /// nil means ask for a name.
    public var savePath: String? {
        if let filePath { return filePath }
        guard let fileName, FileNames.isQuietlySavable(fileName) else { return nil }
        return fileName
    }
}
