import BatonApp

/// When the `Program` does the editor's bulk work: the saves' publish, the join of a large
/// buffer's text for them, and the recovery copy. A state machine without I/O, in
/// `HandoffCore`'s shape: every input carries the time, every answer is a list of things to do
/// now, and `nextDeadline` says when it wants `tick` next. The Program carries the actions out
/// and keeps one timer for the deadline; tests walk it through minutes of time synchronously.
///
/// The rules:
/// - A change is published when the burst of input that made it has been applied.
/// - A buffer of `largeSize` or more has its text joined off the main actor for the saves,
///   `joinWait(bytes:)` after it changed; one join at a time.
/// - While keys arrive in such a buffer (each within `typingPause` of the last), its bulk work
///   — the publish, the join, the recovery copy, tens of milliseconds of CPU each at 16 MB —
///   waits for a pause, at most `longestHold`; then the text is joined, the held publish goes
///   out with it, and the copy is written at once.
/// - A buffer with unsaved changes gets a recovery copy `recoveryDelay` after a change (one
///   write for any number of changes meanwhile, one write at a time); a clean one has its copy
///   removed.
public struct EditorUpkeep: Sendable {
    public typealias Instant = ContinuousClock.Instant

    /// What the machine is told of the editor at each input: nil for a counter.
    public struct Buffer: Equatable, Sendable {
        /// The text's size in UTF-8 bytes.
        public var bytes: Int
        /// Its text is joined already (opened, continued or just joined): a save needs no join.
        public var isTextKept: Bool
        public var isDirty: Bool
        /// The buffer's version: it changes with every edit.
        public var version: UInt64

        public init(bytes: Int, isTextKept: Bool, isDirty: Bool, version: UInt64) {
            self.bytes = bytes
            self.isTextKept = isTextKept
            self.isDirty = isDirty
            self.version = version
        }

        var isLarge: Bool { bytes >= EditorUpkeep.largeSize }
    }

    /// Something to do now.
    public enum Action: Equatable, Sendable {
        /// Save the activity (`AppCommand.publish`).
        case publish
        /// Join the buffer's text off the main actor; answer with `joined`.
        case join
        /// Write the recovery copy off the main actor; answer with `copyWritten`.
        case writeCopy
        /// Remove the recovery copy.
        case removeCopy
    }

    /// A buffer of this many bytes or more is joined off the main actor and held while typing.
    public static let largeSize = 1 << 20
    /// The shortest wait before a join: a large buffer's saves are not more frequent than this.
    public static let joinInterval: Duration = .milliseconds(200)
    /// A pause in the keys this long ends a hold.
    public static let typingPause: Duration = .milliseconds(300)
    /// The longest a hold lasts while the keys go on: a session typed into without a pause is
    /// still published, and its copy written, this often.
    public static let longestHold: Duration = .seconds(5)
    /// How long after a change the recovery copy is written.
    public static let recoveryDelay: Duration = .seconds(1)

    /// The wait before joining a buffer of `bytes`: `joinInterval`, or 1 ms per 20 KB of text
    /// when that is longer (0.8 s for 16 MB). The saves of such a state are about a second
    /// apart (1 ms per 25 KB of its UTF-16 encoding), so joining more often would only be
    /// copying 16 MB for no save.
    public static func joinWait(bytes: Int) -> Duration {
        max(joinInterval, .milliseconds(bytes / 20_000))
    }

    /// When the last key or paste was taken.
    private(set) var lastInputAt: Instant?
    /// Since when bulk work is held for a pause, while it is.
    private(set) var heldSince: Instant?
    /// A publish waits for the hold (and the join after it) to end.
    private(set) var publishHeld = false
    /// A join waits until then.
    private(set) var joinAt: Instant?
    /// A join runs off the main actor.
    private(set) var isJoining = false
    /// A save published an older join while the buffer had moved on: once the newest text is
    /// joined, it is published again.
    public var savedBehind = false
    /// The recovery copy is due then.
    private(set) var copyAt: Instant?
    /// A copy is being written.
    private(set) var isWritingCopy = false
    /// The buffer version the last copy holds.
    private(set) var copyVersion: UInt64?
    /// A copy of this session's is on disk (written here, or the one it was recovered from).
    public var hasCopy = false

    /// Whether recovery copies are kept at all.
    public let keepsCopies: Bool

    public init(keepsCopies: Bool = true) {
        self.keepsCopies = keepsCopies
    }

    /// When `tick` is wanted next: the end of a hold, a join's wait, a copy's delay.
    public var nextDeadline: Instant? {
        // Asked after every key: the earliest of three without an array made and dropped each time.
        func earlier(_ one: Instant?, _ other: Instant?) -> Instant? {
            guard let one else { return other }
            guard let other else { return one }
            return min(one, other)
        }
        return earlier(earlier(holdEnd, joinAt), copyAt)
    }

    private var holdEnd: Instant? {
        guard let heldSince else { return nil }
        return min((lastInputAt ?? heldSince) + Self.typingPause, heldSince + Self.longestHold)
    }

    /// Whether keys came within `typingPause` into a large buffer.
    func isTyping(into buffer: Buffer?, at now: Instant) -> Bool {
        guard let buffer, buffer.isLarge, let lastInputAt else { return false }
        return now - lastInputAt < Self.typingPause
    }

    // MARK: Inputs

    /// A key or a paste was taken.
    public mutating func inputTaken(at now: Instant) {
        lastInputAt = now
    }

    /// A burst of input (or any other batch of messages) has been applied and drawn;
    /// `publishDue`: the session's published state changed.
    public mutating func flushed(_ buffer: Buffer?, publishDue: Bool, at now: Instant) -> [Action] {
        if isTyping(into: buffer, at: now) {
            if publishDue { publishHeld = true }
            if heldSince == nil { heldSince = now }
            return []
        }
        var actions: [Action] = []
        if publishDue {
            publishHeld = false
            actions.append(.publish)
        } else {
            actions += publishHeldWhenReady()
        }
        actions += scheduleCopy(buffer, at: now)
        actions += joinSoon(buffer, at: now)
        return actions
    }

    /// Time passed: what is due by `now`.
    public mutating func tick(_ buffer: Buffer?, at now: Instant) -> [Action] {
        var actions: [Action] = []
        if let end = holdEnd, end <= now {
            heldSince = nil
            // The text is joined first, so the publish after it carries the newest text; the
            // copy is due now, also when the keys went on past `longestHold`.
            actions += joinSoon(buffer, at: now, wait: .zero)
            actions += publishHeldWhenReady()
            copyAt = nil
            actions += scheduleCopy(buffer, at: now, atOnce: true)
        }
        if let due = joinAt, due <= now {
            joinAt = nil
            // A join that came due while keys arrive waits for the hold's end, which joins.
            if buffer != nil, !(heldSince != nil && isTyping(into: buffer, at: now)) {
                isJoining = true
                actions.append(.join)
            }
        }
        if let due = copyAt, due <= now {
            copyAt = nil
            // Written at the pause the held work waits for, not between two keys.
            if !(isTyping(into: buffer, at: now) && heldSince != nil) {
                actions += writeCopy(buffer)
            }
        }
        return actions
    }

    /// A join asked for with `.join` is done: `joinedVersion` is the version it joined, `buffer`
    /// the editor now.
    public mutating func joined(version joinedVersion: UInt64, _ buffer: Buffer?, at now: Instant) -> [Action] {
        isJoining = false
        var actions: [Action] = []
        if publishHeld, heldSince == nil {
            // The publish held for the pause goes out with the text just joined.
            savedBehind = false
            actions += publishHeldWhenReady()
        } else if savedBehind, buffer?.version == joinedVersion {
            // The saves while it changed published an earlier text: this one is the newest.
            savedBehind = false
            actions.append(.publish)
        }
        if heldSince == nil { actions += joinSoon(buffer, at: now) }
        return actions
    }

    /// The copy asked for with `.writeCopy` is written (or failed: the next change tries again).
    public mutating func copyWritten(_ buffer: Buffer?, at now: Instant) -> [Action] {
        isWritingCopy = false
        return scheduleCopy(buffer, at: now)
    }

    /// A copy of `version` was written on the main actor (a signal, the input closing).
    public mutating func copyWrittenNow(version: UInt64) {
        copyVersion = version
        hasCopy = true
    }

    /// A new activity took over: a join waiting or running is for the one before.
    public mutating func activityStarted() {
        joinAt = nil
        isJoining = false
        savedBehind = false
    }

    /// The program is quitting: no copy is due any more.
    public mutating func quitting() {
        copyAt = nil
        heldSince = nil
    }

    // MARK: Rules

    private mutating func publishHeldWhenReady() -> [Action] {
        guard publishHeld, heldSince == nil, joinAt == nil, !isJoining else { return [] }
        publishHeld = false
        return [.publish]
    }

    private mutating func joinSoon(_ buffer: Buffer?, at now: Instant, wait: Duration? = nil) -> [Action] {
        guard joinAt == nil, !isJoining, let buffer, buffer.isLarge, !buffer.isTextKept else { return [] }
        let wait = wait ?? Self.joinWait(bytes: buffer.bytes)
        guard wait > .zero else {
            isJoining = true
            return [.join]
        }
        joinAt = now + wait
        return []
    }

    private mutating func scheduleCopy(_ buffer: Buffer?, at now: Instant, atOnce: Bool = false) -> [Action] {
        guard keepsCopies else { return [] }
        guard let buffer, buffer.isDirty else {
            copyAt = nil
            copyVersion = nil
            guard hasCopy else { return [] }
            hasCopy = false
            return [.removeCopy]
        }
        guard copyAt == nil, !isWritingCopy, buffer.version != copyVersion else { return [] }
        if atOnce { return writeCopy(buffer) }
        copyAt = now + Self.recoveryDelay
        return []
    }

    private mutating func writeCopy(_ buffer: Buffer?) -> [Action] {
        guard let buffer, buffer.isDirty, !isWritingCopy, buffer.version != copyVersion else { return [] }
        isWritingCopy = true
        copyVersion = buffer.version
        hasCopy = true
        return [.writeCopy]
    }
}
