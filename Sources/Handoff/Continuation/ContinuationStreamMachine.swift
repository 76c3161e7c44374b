import HandoffWire

/// One end of a continuation stream after its handshake, without I/O (docs/PROTOCOL.md
/// section 10, "Continuation streams"): frames' plaintexts in, the application's messages in,
/// the time in; frames to write and what changed out, and `nextDeadline` for `tick`.
///
/// The opener writes OPEN (`start`) and waits for the answer; the acceptor has read the OPEN
/// and answers with `accept` or `refuse`. Then both sides are alike: messages split into
/// MESSAGE frames that spend the credit, joined on the way in and handed over whole by `take`,
/// credit granted back as the application takes them, KEEPALIVE when quiet, CLOSE to end.
package struct ContinuationStreamMachine: Sendable {
    package typealias Instant = ContinuousClock.Instant
    package typealias Limits = ContinuationStreamLimits

    package enum Role: Sendable { case opener, acceptor }

    /// How the stream ended.
    package enum Ending: Equatable, Sendable {
        /// One side closed and the other answered (or the wait for it ran out).
        case closed
        /// The acceptor refused the OPEN (its ERROR's code and message).
        case refused(StreamErrorCode, String)
        /// The other side broke a rule (this side answered ERROR 02), or sent ERROR itself.
        case failed(String)
        /// The link went silent or ended without CLOSE.
        case lost(String)
    }

    package enum Action: Equatable, Sendable {
        /// Seal and write this plaintext.
        case write([UInt8])
        /// The opener's OPEN was accepted.
        case opened
        /// A whole message can be taken.
        case messageReady
        /// Credit arrived or a message was written through: senders may go on.
        case sendable
        /// The stream is over: close the connection once the writes before are out.
        case ended(Ending)
    }

    private enum Phase: Equatable, Sendable {
        case awaitingAnswer, awaitingDecision, open, closing, ended(Ending)
    }

    package let role: Role
    private var phase: Phase
    /// Credit this side holds towards the other.
    package private(set) var sendCredit = Limits.window
    /// Credit the other side holds towards this one, as this side counts it.
    private var receiveCredit = Limits.window
    /// Frames waiting for credit, each with the number of the message it ends (nil: more follows).
    private var outbox: [(frame: [UInt8], ends: Int?)] = []
    private var outboxHead = 0
    /// Messages handed in, and messages whose every frame was written.
    package private(set) var messagesQueued = 0
    package private(set) var messagesWritten = 0
    /// Whole messages not taken yet, each with the credit its frames still owe.
    private var inbox: [(message: [UInt8], owed: Int)] = []
    /// The message being joined, and what its frames owe that is not yet due.
    private var joining: [UInt8] = []
    private var joiningMore = false
    private var joiningOwed = 0
    /// Credit due to the other side, not yet granted.
    private var due = 0
    private var lastWrite: Instant
    private var lastHeard: Instant
    private var closeDeadline: Instant?

    package init(role: Role, now: Instant) {
        self.role = role
        phase = role == .opener ? .awaitingAnswer : .awaitingDecision
        lastWrite = now
        lastHeard = now
    }

    package var ending: Ending? {
        if case .ended(let ending) = phase { return ending }
        return nil
    }
    package var isOpen: Bool { phase == .open }
    /// Whether a message of up to one frame would be written at once.
    package var canSendWithoutWaiting: Bool {
        phase == .open && outboxHead == outbox.count && sendCredit >= ContinuationFrame.cost(ofChunk: Limits.maximumChunk)
    }
    /// Whether a message of `count` bytes would be written whole at once: open, nothing
    /// waiting before it, and the credit enough for every frame of it.
    package func canSendAtOnce(_ count: Int) -> Bool {
        guard phase == .open, outboxHead == outbox.count else { return false }
        let frames = max(1, (count + Limits.maximumChunk - 1) / Limits.maximumChunk)
        return count + 2 * frames <= sendCredit
    }
    /// Whether a whole message waits to be taken.
    package var hasMessage: Bool { !inbox.isEmpty }
    /// Whole messages received and not taken yet.
    package var waitingMessages: Int { inbox.count }

    /// The OPEN the opener writes with its proof.
    package func openFrame(activityID: String) -> [UInt8] { ContinuationFrame.open(activityID: activityID).plaintext }

    // MARK: - The acceptor's answer

    package mutating func accept(now: Instant) -> [Action] {
        guard phase == .awaitingDecision else { return [] }
        phase = .open
        return [write(.accept, now), .opened]
    }

    package mutating func refuse(_ code: StreamErrorCode, _ message: String, now: Instant) -> [Action] {
        guard phase == .awaitingDecision else { return [] }
        return [write(.error(code, message: message), now), end(.refused(code, message))]
    }

    // MARK: - Frames in

    package mutating func receive(_ plaintext: [UInt8], now: Instant) -> [Action] {
        guard ending == nil else { return [] }
        lastHeard = now
        let frame: ContinuationFrame
        do {
            frame = try ContinuationFrame(plaintext: plaintext[...])
        } catch {
            return violation("a frame that breaks the rules (\(error))", now)
        }
        switch (phase, frame) {
        case (.awaitingAnswer, .accept):
            phase = .open
            return [.opened]
        case (.awaitingAnswer, .error(let code, let message)):
            return [end(.refused(code, message))]
        case (.open, .message(let more, let chunk)), (.closing, .message(let more, let chunk)):
            return message(more: more, chunk, now)
        case (.open, .credit(let amount)), (.closing, .credit(let amount)):
            guard sendCredit + amount <= Limits.window else { return violation("credit beyond the window", now) }
            sendCredit += amount
            return flush(now)
        case (.open, .keepAlive), (.closing, .keepAlive):
            return []
        case (.open, .close), (.closing, .close):
            guard !joiningMore else { return violation("CLOSE inside a message", now) }
            var actions: [Action] = []
            if phase == .open { actions.append(write(.close, now)) }
            actions.append(end(.closed))
            return actions
        case (.open, .error(_, let message)), (.closing, .error(_, let message)):
            return [end(.failed("the other side sent ERROR: \(PeerText.visible(message))"))]
        default:
            return violation("an unexpected frame", now)
        }
    }

    /// The connection ended (or failed) without a CLOSE.
    package mutating func linkEnded(_ reason: String) -> [Action] {
        guard ending == nil else { return [] }
        return [end(.lost(reason))]
    }

    private mutating func message(more: Bool, _ chunk: ArraySlice<UInt8>, _ now: Instant) -> [Action] {
        let cost = ContinuationFrame.cost(ofChunk: chunk.count)
        guard cost <= receiveCredit else { return violation("a MESSAGE beyond the credit granted", now) }
        guard joining.count + chunk.count <= Limits.maximumMessage else { return violation("a message over 32 MiB", now) }
        receiveCredit -= cost
        joining.append(contentsOf: chunk)
        joiningMore = more
        if more {
            // Due now unless a whole message waits: a reader that stops grants nothing more.
            if inbox.isEmpty { due += cost } else { joiningOwed += cost }
            return grant(now)
        }
        inbox.append((joining, joiningOwed + cost))
        joining = []
        joiningOwed = 0
        return [.messageReady]
    }

    // MARK: - The application

    /// The next whole message, if one waits; taking it makes its credit due.
    package mutating func take(now: Instant) -> (message: [UInt8]?, actions: [Action]) {
        guard !inbox.isEmpty else { return (nil, []) }
        let (message, owed) = inbox.removeFirst()
        due += owed
        if inbox.isEmpty {
            due += joiningOwed
            joiningOwed = 0
        }
        return (message, ending == nil ? grant(now) : [])
    }

    /// Queues `message` (at most 32 MiB: more is the caller's bug) and writes what the credit
    /// allows; the message is written through once `messagesWritten` reaches the number returned.
    package mutating func send(_ message: [UInt8], now: Instant) -> (number: Int, actions: [Action]) {
        precondition(message.count <= Limits.maximumMessage, "a message is at most 32 MiB")
        guard phase == .open else { return (messagesQueued, []) }
        messagesQueued += 1
        var start = 0
        repeat {
            let end = min(message.count, start + Limits.maximumChunk)
            let last = end == message.count
            outbox.append((ContinuationFrame.message(more: !last, message[start..<end]).plaintext, last ? messagesQueued : nil))
            start = end
        } while start < message.count
        return (messagesQueued, flush(now))
    }

    /// Ends this side: CLOSE after what was written; frames still waiting for credit are dropped.
    package mutating func close(now: Instant) -> [Action] {
        switch phase {
        case .open:
            outbox = []
            outboxHead = 0
            phase = .closing
            closeDeadline = now + Limits.closeLimit
            return [write(.close, now), .sendable]
        case .awaitingAnswer, .awaitingDecision:
            return [end(.closed)]
        case .closing, .ended:
            return []
        }
    }

    // MARK: - Time

    package var nextDeadline: Instant? {
        switch phase {
        case .ended: return nil
        case .awaitingDecision: return nil
        case .awaitingAnswer: return lastWrite + Limits.answerLimit
        case .closing: return closeDeadline
        case .open: return min(lastWrite + Limits.keepAliveInterval, lastHeard + Limits.silenceLimit)
        }
    }

    package mutating func tick(now: Instant) -> [Action] {
        switch phase {
        case .awaitingAnswer where now >= lastWrite + Limits.answerLimit:
            return [end(.lost("no answer to the OPEN within \(Limits.answerLimit)"))]
        case .closing where closeDeadline.map { now >= $0 } ?? false:
            return [end(.closed)]
        case .open where now >= lastHeard + Limits.silenceLimit:
            return [end(.lost("nothing heard for \(Limits.silenceLimit)"))]
        case .open where now >= lastWrite + Limits.keepAliveInterval:
            return [write(.keepAlive, now)]
        default:
            return []
        }
    }

    // MARK: - Helpers

    private mutating func flush(_ now: Instant) -> [Action] {
        var actions: [Action] = []
        var wrote = false
        while outboxHead < outbox.count, phase == .open {
            let (frame, ends) = outbox[outboxHead]
            guard frame.count <= sendCredit else { break }
            sendCredit -= frame.count
            outboxHead += 1
            actions.append(.write(frame))
            lastWrite = now
            if let ends { messagesWritten = ends; wrote = true }
        }
        if outboxHead == outbox.count {
            outbox = []
            outboxHead = 0
        }
        if wrote || sendCredit > 0 { actions.append(.sendable) }
        return actions
    }

    private mutating func grant(_ now: Instant) -> [Action] {
        guard phase == .open, due >= Limits.grantStep else { return [] }
        let amount = min(due, Limits.window)
        due -= amount
        receiveCredit += amount
        return [write(.credit(amount), now)]
    }

    private mutating func write(_ frame: ContinuationFrame, _ now: Instant) -> Action {
        lastWrite = now
        return .write(frame.plaintext)
    }

    private mutating func violation(_ reason: String, _ now: Instant) -> [Action] {
        [write(.error(.badRequest, message: reason), now), end(.failed("the other side broke the protocol: \(reason)"))]
    }

    private mutating func end(_ ending: Ending) -> Action {
        phase = .ended(ending)
        outbox = []
        outboxHead = 0
        return .ended(ending)
    }
}
