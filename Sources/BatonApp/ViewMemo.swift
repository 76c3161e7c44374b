import Synchronization
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// The editor's text rows drawn in the last frame, kept from one frame to the next by whoever
/// draws frames (the `Program`), so that a frame draws again only the lines that changed.
///
/// A row is known by what decides its cells (the line's bytes, the display column it is seen
/// from, and the width of the text area), so a line that moved up or down a row is found as
/// well. Only the rows of the last frame are kept. `BatonApp.view(_:memo:)` with a memo draws
/// the same frame as without one; the memo saves measuring every character again.
public final class ViewMemo {
    /// What decides a row's cells. Compared by bytes: `String`'s own comparison normalizes
    /// the text first, which costs about as much as drawing it.
    struct RowKey: Equatable {
        let text: String
        let left: Int
        let width: Int
        /// What else decides the row's cells: its colours (the syntax, and the region the line
        /// starts in); 0 when it has none.
        var colouring: Int = 0

        static func == (a: RowKey, b: RowKey) -> Bool {
            guard a.left == b.left, a.width == b.width, a.colouring == b.colouring, a.text.utf8.count == b.text.utf8.count
            else { return false }
            // One `memcmp` where both are contiguous (lines cut from the rope are); a byte at a
            // time through the UTF-8 view costs more than the rest of a row's reuse.
            let same = a.text.utf8.withContiguousStorageIfAvailable { mine in
                b.text.utf8.withContiguousStorageIfAvailable { theirs in
                    mine.count == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0
                }
            }
            return (same ?? nil) ?? a.text.utf8.elementsEqual(b.text.utf8)
        }
    }

    struct Row {
        let key: RowKey
        /// A copy: a slice would share the frame's storage and make its next write copy it all.
        let cells: [Cell]
        let cut: (left: Bool, right: Bool)
        /// The frame's number for a row of these cells (`ScreenBuffer.stamp(row:as:)`), unique in
        /// the process: a frame row drawn from this one in two frames in a row is not compared.
        let stamp = ViewMemo.newStamp()
    }

    private static let stamps = Atomic<UInt64>(0)

    static func newStamp() -> UInt64 {
        stamps.add(1, ordering: .relaxed).newValue
    }

    /// Numbers row `y` of `frame` as a copy of `row`, when the row is all of the frame's width
    /// (a narrower one shares the frame row with cells drawn by others).
    private static func stamp(_ row: Row, y: Int, in frame: inout ScreenBuffer) {
        if row.cells.count == frame.width { frame.stamp(row: y, as: row.stamp) }
    }

    /// The rows of the last frame and of this one, in the order they were drawn (top down).
    private var previous: [Row] = []
    private var current: [Row] = []
    /// Rows copied from an earlier frame rather than drawn, since the memo was made.
    private(set) var rowsReused = 0
    /// Frames blanked in place rather than allocated, since the memo was made.
    private(set) var framesReused = 0

    /// The status bar's row. A key changes it only when it changes what the bar says.
    private var statusRow = KeptRow<StatusBar.Inputs>()
    /// Frames whose status bar was copied from the last one, since the memo was made.
    var statusesReused: Int { statusRow.reused }
    /// Frames handed back after drawing (`recycle`), the newest last: the older one is no longer
    /// the backend's last frame, so its cells can be blanked in place for the next frame
    /// instead of allocated again.
    private var spares: [ScreenBuffer] = []

    /// What the syntax colours kept from the last frame.
    let syntax = SyntaxMemo()

    /// An empty memo.
    public init() {}

    /// Hands back a frame once it has been drawn; a later frame reuses its memory.
    public func recycle(_ frame: ScreenBuffer) {
        spares.append(frame)
        if spares.count > 2 { spares.removeFirst() }
    }

    /// Rows of the frame being drawn that still hold a text row of the frame it was two frames
    /// ago, not yet drawn in this one: a text row drawn there again is not copied (its cells are
    /// there), and the others are blanked by `sweep`.
    private var kept: [Bool] = []
    /// Text rows found in place in the frame being drawn, since the memo was made.
    private(set) var rowsInPlace = 0

    /// A frame of `size` to draw into: the oldest spare when it is that size, blank but for
    /// its numbered rows (text rows drawn by this memo, see `ScreenBuffer.rowStamps`), which
    /// the frame's text rows take or `sweep` blanks. Otherwise a new blank one.
    func blankFrame(size: TerminalSize) -> ScreenBuffer {
        kept = []
        guard spares.count == 2, spares[0].size == size else { return ScreenBuffer(size: size) }
        var frame = spares.removeFirst()
        kept = frame.rowStamps.map { $0 != 0 }
        for y in 0..<frame.height { frame.clear(row: y, unnumbered: true) }
        framesReused += 1
        return frame
    }

    /// Blanks the rows `blankFrame` kept that no text row took and nothing wrote to: called
    /// once the text is drawn, before anything else draws (which expects blank rows).
    func sweep(_ frame: inout ScreenBuffer) {
        for y in kept.indices where kept[y] && frame.rowStamps[y] != 0 { frame.clear(row: y) }
        kept = []
    }

    /// Readies row `y` of `frame` for `row`: true when it holds that row already (kept from
    /// two frames before); a kept row holding another is blanked first.
    private func ready(_ y: Int, for row: Row?, in frame: inout ScreenBuffer) -> Bool {
        guard y >= 0, y < kept.count, kept[y] else { return false }
        kept[y] = false
        if let row, frame.rowStamps[y] == row.stamp {
            rowsInPlace += 1
            return true
        }
        frame.clear(row: y)
        return false
    }

    /// A whole row kept from the last frame with what decided it: drawn again only when that
    /// changes.
    struct KeptRow<Key: Equatable> {
        private var last: (key: Key, cells: [Cell])?
        /// Frames whose row was copied from the last one.
        private(set) var reused = 0

        /// Puts the row that `key` decides at row `y`: the last frame's cells when it drew the
        /// same key at the same width, else what `draw` draws there.
        mutating func draw(_ key: Key, y: Int, into frame: inout ScreenBuffer, draw: (inout ScreenBuffer) -> Void) {
            if let last, last.key == key, frame.put(span: last.cells[...], x: 0, y: y) {
                reused += 1
                return
            }
            draw(&frame)
            last = (key, Array(frame.span(x: 0, y: y, count: frame.width)))
        }
    }

    /// The nearby hint's row. It is on the screen whenever something is nearby, and changes
    /// once a second.
    private var hintRow = KeptRow<MessageLine.HintKey>()
    /// Frames whose nearby hint was copied from the last one, since the memo was made.
    var hintsReused: Int { hintRow.reused }

    /// Puts the nearby hint that `key` decides at row `y` (a row blank before).
    func drawHint(_ key: MessageLine.HintKey, y: Int, into frame: inout ScreenBuffer, draw: (inout ScreenBuffer) -> Void) {
        hintRow.draw(key, y: y, into: &frame, draw: draw)
    }

    /// The keys' line above the status bar: the same on every key while nothing else is said
    /// there.
    private var keysRow = KeptRow<MessageLine.KeysKey>()
    /// Frames whose keys' line was copied from the last one, since the memo was made.
    var keysReused: Int { keysRow.reused }

    /// Puts the keys' line that `key` decides at row `y` (a row blank before).
    func drawKeys(_ key: MessageLine.KeysKey, y: Int, into frame: inout ScreenBuffer, draw: (inout ScreenBuffer) -> Void) {
        keysRow.draw(key, y: y, into: &frame, draw: draw)
    }

    /// The editor's title row. A key changes it only when it makes the buffer dirty or the title
    /// shows the cursor's position (Alt-C).
    private var titleRow = KeptRow<EditorView.TitleKey>()
    /// Frames whose title was copied from the last one, since the memo was made.
    var titlesReused: Int { titleRow.reused }

    /// Puts the title that `key` decides at row `y`.
    func drawTitle(_ key: EditorView.TitleKey, y: Int, into frame: inout ScreenBuffer, draw: (inout ScreenBuffer) -> Void) {
        titleRow.draw(key, y: y, into: &frame, draw: draw)
    }

    /// Puts the status bar that `inputs` decide at row `y`.
    func drawStatus(_ inputs: StatusBar.Inputs, y: Int, into frame: inout ScreenBuffer, draw: (inout ScreenBuffer) -> Void) {
        statusRow.draw(inputs, y: y, into: &frame, draw: draw)
    }

    /// Starts a frame: rows kept since the last call become the ones to reuse.
    func startFrame() {
        syntax.startFrame()
        swap(&previous, &current)
        current.removeAll(keepingCapacity: true)
    }

    /// Draws `text` as the editor draws a line (`ScreenBuffer.drawScrolled` from display column
    /// `left` into `width` columns at (0, `y`) of a row blank there), from the last frame's
    /// cells when it drew the same line the same way. `start` gives the place drawing may start
    /// from (`TextBuffer.drawStart`), asked only when the line is drawn.
    ///
    /// `colouring` names the colours the row gets (0: none), which `paint` puts on the cells
    /// drawn; a row kept from the last frame has them already.
    ///
    /// With `lookUp` false the line is drawn at once: the caller found no row to reuse
    /// (`reuseLine`).
    func drawLine(
        _ text: String, left: Int, y: Int, width: Int, into frame: inout ScreenBuffer, start: () -> LinePlace = { .start },
        colouring: Int = 0, lookUp: Bool = true, paint: (inout ScreenBuffer) -> Void = { _ in }
    ) -> (left: Bool, right: Bool) {
        let key = RowKey(text: text, left: left, width: width, colouring: colouring)
        let found = lookUp ? reusable(key) : nil
        if let row = found, ready(y, for: row, in: &frame) || frame.put(span: row.cells[...], x: 0, y: y) {
            current.append(row)
            Self.stamp(row, y: y, in: &frame)
            rowsReused += 1
            return row.cut
        }
        _ = ready(y, for: nil, in: &frame)
        let cut = frame.drawScrolled(text, from: left, start: start(), x: 0, y: y, width: width)
        paint(&frame)
        let row = Row(key: key, cells: Array(frame.span(x: 0, y: y, count: width)), cut: cut)
        current.append(row)
        Self.stamp(row, y: y, in: &frame)
        return cut
    }

    /// Puts at row `y` the last frame's row of a line whose UTF-8 is `bytes`, drawn from display
    /// column `left` in `width` columns with `colouring`, as `drawLine` would have; nil when the
    /// last frame drew no such row (then `drawLine(..., lookUp: false)` draws it). The bytes are
    /// compared where they lie: most rows of a frame are found so, and are never made a `String`.
    func reuseLine(
        _ bytes: UnsafeBufferPointer<UInt8>, left: Int, y: Int, width: Int, colouring: Int, into frame: inout ScreenBuffer
    ) -> (left: Bool, right: Bool)? {
        func matches(_ key: RowKey) -> Bool {
            guard key.left == left, key.width == width, key.colouring == colouring, key.text.utf8.count == bytes.count
            else { return false }
            guard bytes.count > 0 else { return true }
            let same = key.text.utf8.withContiguousStorageIfAvailable { mine in
                memcmp(mine.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            }
            return same ?? key.text.utf8.elementsEqual(bytes)
        }
        let place = current.count
        // Found by its index, the keys compared where they lie: the row is copied once, into
        // this frame's rows (a copy retains its text and its cells).
        let index = previous.withUnsafeBufferPointer { rows in
            place < rows.count && matches(rows[place].key) ? place : rows.firstIndex { matches($0.key) }
        }
        guard let index else { return nil }
        let row = previous[index]
        guard ready(y, for: row, in: &frame) || frame.put(span: row.cells[...], x: 0, y: y) else { return nil }
        Self.stamp(row, y: y, in: &frame)
        let cut = row.cut
        current.append(consume row)
        rowsReused += 1
        return cut
    }

    /// The last frame's row drawn as `key` says: the one in the same place first (a row that did
    /// not change), then any other (a row that moved up or down). No hashing: a frame has a
    /// screenful of rows, and most comparisons end at the lengths.
    private func reusable(_ key: RowKey) -> Row? {
        let place = current.count
        if place < previous.count, previous[place].key == key { return previous[place] }
        return previous.first { $0.key == key }
    }
}
