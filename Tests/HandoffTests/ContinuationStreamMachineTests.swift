import Testing
@testable import Handoff
@testable import HandoffWire

/// The continuation stream's machine in virtual time: two ends joined by hand, every frame
/// passed on explicitly, the time an input.
@Suite("Continuation stream machine")
struct ContinuationStreamMachineTests {
    typealias Machine = ContinuationStreamMachine
    let start = ContinuousClock.now

    /// The frames among `actions`, decoded.
    static func frames(_ actions: [Machine.Action]) -> [ContinuationFrame] {
        actions.compactMap { if case .write(let bytes) = $0 { try? ContinuationFrame(plaintext: bytes[...]) } else { nil } }
    }

    static func writes(_ actions: [Machine.Action]) -> [[UInt8]] {
        actions.compactMap { if case .write(let bytes) = $0 { bytes } else { nil } }
    }

    /// Both ends, the OPEN accepted.
    func pair() -> (Machine, Machine) {
        var opener = Machine(role: .opener, now: start)
        var acceptor = Machine(role: .acceptor, now: start)
        let answer = acceptor.accept(now: start)
        #expect(Self.frames(answer) == [.accept] && answer.contains(.opened))
        for frame in Self.writes(answer) { #expect(opener.receive(frame, now: start) == [.opened]) }
        #expect(opener.isOpen && acceptor.isOpen)
        return (opener, acceptor)
    }

    /// Delivers every frame in `actions` to `to`, returning what it answered.
    @discardableResult
    func deliver(_ actions: [Machine.Action], to machine: inout Machine, at offset: Duration = .zero) -> [Machine.Action] {
        Self.writes(actions).flatMap { machine.receive($0, now: start + offset) }
    }

    @Test("An accepted stream carries messages both ways, whole and in order")
    func accepted() {
        var (a, b) = pair()
        let sent = a.send([1, 2, 3], now: start)
        #expect(sent.number == 1 && a.messagesWritten == 1)
        #expect(deliver(sent.actions, to: &b).contains(.messageReady))
        let empty = b.send([], now: start)
        deliver(empty.actions, to: &a)
        #expect(b.take(now: start).message == [1, 2, 3])
        #expect(a.take(now: start).message == [])
        #expect(a.take(now: start).message == nil)
    }

    @Test("Each refusal reaches the opener with its code", arguments: [StreamErrorCode.notHeld, .notSupported, .busy, .badRequest])
    func refused(_ code: StreamErrorCode) {
        var opener = Machine(role: .opener, now: start)
        var acceptor = Machine(role: .acceptor, now: start)
        let answer = acceptor.refuse(code, "why", now: start)
        #expect(acceptor.ending == .refused(code, "why"))
        deliver(answer, to: &opener)
        #expect(opener.ending == .refused(code, "why"))
    }

    @Test("No answer to the OPEN within 5 s ends the stream as lost")
    func noAnswer() {
        var opener = Machine(role: .opener, now: start)
        #expect(opener.nextDeadline == start + .seconds(5))
        #expect(opener.tick(now: start + .seconds(4.9)).isEmpty)
        guard case .ended(.lost)? = opener.tick(now: start + .seconds(5)).last else { Issue.record("not lost"); return }
    }

    @Test("A message over the window is split, waits for credit, and is joined whole; a reader that stops grants nothing")
    func flowControl() {
        var (a, b) = pair()
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var out = a.send(big, now: start)
        #expect(a.messagesWritten == 0, "the sender waits at the window")
        #expect(!a.canSendWithoutWaiting)
        var guardCount = 0
        while a.messagesWritten < 1, guardCount < 1_000 {
            guardCount += 1
            let answers = deliver(out.actions, to: &b)
            #expect(!Self.frames(answers).isEmpty, "the receiver grants while it joins the only message")
            out.actions = deliver(answers, to: &a)
        }
        deliver(out.actions, to: &b)
        #expect(b.take(now: start).message == big)

        // B's reader stops: the first small message arrives, then nothing is granted any more.
        let filler = [UInt8](repeating: 9, count: 1_000)
        var written = 0
        for _ in 0..<2_000 {
            let sent = a.send(filler, now: start)
            let answers = deliver(sent.actions, to: &b)
            #expect(Self.frames(answers).isEmpty, "no credit while messages wait untaken")
            written = a.messagesWritten
        }
        #expect(written < 2_000, "the sender stopped at the window")
        #expect(a.sendCredit < 1_002)
        // Taking the messages gives the credit back, and the sender goes on.
        var resumed: [Machine.Action] = []
        while true {
            let (message, actions) = b.take(now: start)
            resumed += actions
            guard let message else { break }
            #expect(message == filler)
        }
        #expect(Self.frames(resumed).contains { if case .credit = $0 { true } else { false } })
        deliver(resumed, to: &a)
        #expect(a.messagesWritten > written)
    }

    @Test("A message goes at once only when every frame of it fits the credit and nothing waits before it")
    func atOnce() {
        var (a, _) = pair()
        let chunk = ContinuationStreamLimits.maximumChunk
        #expect(ContinuationStreamLimits.window == 16 * (chunk + 2), "16 full frames spend the window exactly")
        #expect(a.canSendAtOnce(0) && a.canSendAtOnce(100))
        #expect(a.canSendAtOnce(16 * chunk), "16 frames: the whole window")
        #expect(!a.canSendAtOnce(16 * chunk + 1), "a 17th frame's header is over it")
        let first = a.send([UInt8](repeating: 1, count: 100), now: start)
        #expect(first.number == 1 && a.messagesWritten == 1)
        #expect(!a.canSendAtOnce(16 * chunk), "102 bytes of the credit are spent")
        // A message that waits for credit: nothing may go at once behind it, however small.
        _ = a.send([UInt8](repeating: 2, count: 16 * chunk), now: start)
        #expect(a.messagesWritten == 1)
        #expect(!a.canSendAtOnce(0))
        _ = a.close(now: start)
        #expect(!a.canSendAtOnce(0), "closing: nothing more")
    }

    @Test("Close from either end: the other answers CLOSE and both end closed")
    func close() {
        for closer in 0..<2 {
            var (a, b) = pair()
            if closer == 1 { swap(&a, &b) }
            let sent = a.send([7], now: start)
            let closing = sent.actions + a.close(now: start)
            #expect(a.nextDeadline == start + .seconds(2))
            let answer = deliver(closing, to: &b)
            #expect(b.ending == .closed && b.take(now: start).message == [7], "the message before CLOSE still arrives")
            deliver(answer, to: &a)
            #expect(a.ending == .closed)
        }
        var (a, _) = pair()
        _ = a.close(now: start)
        #expect(a.tick(now: start + .seconds(2)) == [.ended(.closed)], "no answering CLOSE: ended after 2 s")
    }

    @Test("Keep-alive after 5 s of quiet; lost after 15 s without a frame")
    func keepAlive() {
        var (a, b) = pair()
        #expect(a.nextDeadline == start + .seconds(5))
        let ping = a.tick(now: start + .seconds(5))
        #expect(Self.frames(ping) == [.keepAlive])
        #expect(deliver(ping, to: &b, at: .seconds(5)).isEmpty)
        #expect(b.tick(now: start + .seconds(19)).count == 1, "heard at 5 s: only its own keep-alive")
        guard case .ended(.lost)? = a.tick(now: start + .seconds(15)).last else { Issue.record("A lives on"); return }
        #expect(b.linkEnded("gone") == [.ended(.lost("gone"))])
    }

    @Test("Every broken rule is answered ERROR 02 and ends the stream", arguments: [
        [7, 2], [8, 0, 0, 0, 1], [5, 0x41], [6], [1, 0], [0x0B], [10, 9], [],
    ] as [[UInt8]])
    func brokenRule(_ plaintext: [UInt8]) {
        var (a, _) = pair()
        let actions = a.receive(plaintext, now: start)
        guard case .error(.badRequest, _)? = Self.frames(actions).first, case .ended(.failed)? = actions.last else {
            Issue.record("\(plaintext) was taken: \(actions)"); return
        }
    }

    @Test("A MESSAGE beyond the credit, and CLOSE inside a message, break the rules")
    func beyondCredit() {
        var (_, b) = pair()
        _ = b.receive([7, 0, 1], now: start)  // a whole message that nobody takes: nothing more is granted
        let chunk = ContinuationFrame.message(more: true, ArraySlice(repeating: 1, count: ContinuationStreamLimits.maximumChunk)).plaintext
        var taken = 0
        while b.ending == nil, taken < 17 {
            _ = b.receive(chunk, now: start)
            taken += 1
        }
        #expect(taken == 16, "the 16th frame goes 3 bytes past the window")
        guard case .failed? = b.ending else { Issue.record("over the window was taken"); return }
        var (_, c) = pair()
        _ = c.receive([7, 1, 5], now: start)
        guard case .ended(.failed)? = c.receive([10], now: start).last else { Issue.record("CLOSE inside a message"); return }
    }
}
