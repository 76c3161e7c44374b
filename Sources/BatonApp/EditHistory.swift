import FoundationEssentials

/// One undoable change, kept as whole lines: the lines `removed` that stood from `line` on
/// before it, and the lines `inserted` that stand there after it (each at least one line).
/// Whole lines make a step exact whatever segmentation did at its edges (a combining mark
/// typed after a letter joins it), and make steps easy to check against a peer's text.
public struct EditStep: Equatable, Sendable {
    /// What made the change; only a run of the same kind is grouped.
    public enum Kind: Equatable, Sendable {
        /// Characters, Enter, Tab.
        case typing
        /// Backspace.
        case backspace
        /// Delete.
        case deleteForward
        /// Ctrl-K (repeated Ctrl-K gathers lines, as one step).
        case cut
        /// One insert of a whole text (Ctrl-U, a paste): always a step of its own.
        case paste
        /// A step that came with a continued activity; never grouped with.
        case received
        /// One replacement of a search's match, or the removal of a selection: a step of its own.
        case replace

        /// Whether a step of this kind is never joined with the steps around it.
        var standsAlone: Bool { self == .paste || self == .received || self == .replace }
    }

    /// The first line the change touched.
    public var line: Int
    /// The lines there before the change.
    public var removed: [String]
    /// The lines there after the change.
    public var inserted: [String]
    /// The cursor before the change (where undo puts it).
    public var cursorBefore: TextPosition
    /// The cursor after the change (where redo puts it).
    public var cursorAfter: TextPosition
    /// What made it.
    public var kind: Kind

    /// UTF-8 bytes of its text, what the history's budgets count.
    public var byteCount: Int {
        (removed + inserted).reduce(0) { $0 + $1.utf8.count + 1 }
    }

    /// `next`, which came right after this step, folded into one step, or nil when the two
    /// touch line ranges that neither overlap nor meet.
    func merged(with next: EditStep) -> EditStep? {
        // In the coordinates between the two steps: this step's lines, then `next`'s.
        let a = line, aEnd = line + inserted.count
        let b = next.line, bEnd = next.line + next.removed.count
        guard b <= aEnd, a <= bEnd else { return nil }
        let low = min(a, b), high = max(aEnd, bEnd)
        func slice(_ lines: [String], _ from: Int, _ to: Int) -> [String] {
            let from = from.clamped(0, lines.count), to = to.clamped(0, lines.count)
            return from < to ? Array(lines[from..<to]) : []
        }
        // Before both: lines outside this step's range are as `next` found them.
        let before = slice(next.removed, low - b, a - b) + removed + slice(next.removed, aEnd - b, high - b)
        // After both: lines outside `next`'s range are as this step left them.
        let after = slice(inserted, low - a, b - a) + next.inserted + slice(inserted, bEnd - a, high - a)
        return EditStep(
            line: low, removed: before, inserted: after,
            cursorBefore: cursorBefore, cursorAfter: next.cursorAfter, kind: kind)
    }
}

/// The editor's undo and redo history: bounded in steps and bytes, oldest dropped first.
///
/// A run of typing (or of Backspace, Delete, Ctrl-K) is one step; a pause of
/// `pause` (measured by the model's ticks), a cursor move, another kind of edit, undo or redo
/// starts a new one. One insert of a whole text is always one step.
public struct EditHistory: Equatable, Sendable {
    /// Steps that can be undone, oldest first.
    public var undoSteps: [EditStep] { Array(steps) }
    /// The same, without a copy.
    var steps: ArraySlice<EditStep> { storage[head...] }
    /// The steps to undo from `head` on; those before it were dropped to keep the bounds and
    /// are removed in one go now and then, so that a step past the bound costs no shift of
    /// a thousand (a replace of 40,000 matches pushes 40,000 steps).
    private var storage: [EditStep] = []
    private var head = 0
    /// Steps that can be redone, the next one last.
    public private(set) var redoSteps: [EditStep] = []
    /// Whether the next edit starts a new step rather than joining the last one.
    public private(set) var isSealed = true
    /// Whether an edit joined the open step since the last tick.
    private var editedSinceTick = false
    /// When the open step was last seen growing (the time of a tick, or of the edit).
    private var lastActive: Date = .distantPast
    /// Bytes held by both stacks.
    private var bytes = 0

    /// How long typing must pause before the next key starts a new step.
    public static let pause: TimeInterval = 1
    /// At most this many steps are kept.
    public static let maxSteps = 1_000
    /// At most this many bytes of text are kept.
    public static let maxBytes = 8 << 20

    /// An empty history.
    public init() {}

    public static func == (a: EditHistory, b: EditHistory) -> Bool {
        a.steps.elementsEqual(b.steps) && a.redoSteps == b.redoSteps && a.isSealed == b.isSealed
            && a.editedSinceTick == b.editedSinceTick && a.lastActive == b.lastActive && a.bytes == b.bytes
    }

    /// A history holding `steps` to undo (oldest first), as checked by `EditHistory.received`.
    init(undoSteps steps: [EditStep]) {
        for step in steps { push(step) }
        isSealed = true
    }

    /// The same history with its steps in arrays of its own (see `TextBuffer.unshared`).
    func unshared() -> EditHistory {
        var copy = self
        copy.storage = storage.map { $0 }
        copy.redoSteps = redoSteps.map { $0 }
        return copy
    }

    /// Whether a step is open for the next edit to join (the model ticks until it closes).
    public var isOpen: Bool { !isSealed }

    /// Notes an edit: joins the open step when it continues it, else starts a new one.
    mutating func record(_ step: EditStep, at now: Date) {
        releaseRedo()
        if !isSealed, storage.count > head, let last = storage.last, last.kind == step.kind, !step.kind.standsAlone,
           last.cursorAfter == step.cursorBefore, let joined = last.merged(with: step) {
            bytes -= last.byteCount
            storage.removeLast()
            push(joined)
        } else {
            push(step)
        }
        isSealed = step.kind.standsAlone
        editedSinceTick = true
        lastActive = now
    }

    /// The next edit starts a new step.
    mutating func seal() {
        isSealed = true
    }

    /// The clock moved: a pause of `pause` with no edit closes the open step.
    mutating func tick(_ now: Date) {
        guard !isSealed else { return }
        if editedSinceTick {
            editedSinceTick = false
            lastActive = max(lastActive, now)
        } else if now.timeIntervalSince(lastActive) >= Self.pause {
            isSealed = true
        }
    }

    /// Takes the step to undo, keeping it for redo.
    mutating func popUndo() -> EditStep? {
        guard storage.count > head, let step = storage.popLast() else { return nil }
        redoSteps.append(step)
        isSealed = true
        return step
    }

    /// Takes the step to redo, keeping it for undo.
    mutating func popRedo() -> EditStep? {
        guard let step = redoSteps.popLast() else { return nil }
        storage.append(step)
        isSealed = true
        return step
    }

    private mutating func push(_ step: EditStep) {
        storage.append(step)
        bytes += step.byteCount
        while storage.count - head > Self.maxSteps || (bytes > Self.maxBytes && storage.count > head) {
            bytes -= storage[head].byteCount
            head += 1
        }
        if head > Self.maxSteps / 4 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    private mutating func releaseRedo() {
        for step in redoSteps { bytes -= step.byteCount }
        redoSteps.removeAll()
    }
}

extension TextBuffer {
    /// The lines `range` as strings.
    func lineStrings(_ range: ClosedRange<Int>) -> [String] {
        range.map { lineText($0) }
    }

    /// Replaces the lines from `line` (`count` of them) with `replacement`.
    mutating func replaceLines(at line: Int, count: Int, with replacement: [String]) {
        let last = line + count - 1
        replace(
            from: TextPosition(line: line, column: 0),
            to: TextPosition(line: last, column: characterCount(ofLine: min(last, lineCount - 1))),
            with: replacement.joined(separator: "\n"))
    }

    /// Undoes `step` (the text must be as the step left it) and puts the cursor where it was.
    mutating func undo(_ step: EditStep) {
        replaceLines(at: step.line, count: step.inserted.count, with: step.removed)
        move(to: step.cursorBefore)
    }

    /// Does `step` again (the text must be as the step found it).
    mutating func redo(_ step: EditStep) {
        replaceLines(at: step.line, count: step.removed.count, with: step.inserted)
        move(to: step.cursorAfter)
    }
}
