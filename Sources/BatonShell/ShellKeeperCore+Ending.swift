/// The program's end told to the terminals: each gets the screen as the program left it, then
/// `ended` (docs/PROTOCOL.md section 20, "Leaving").
extension ShellKeeperCore {
    /// How long a terminal has, once the program ended, to say it showed the update on its way:
    /// then it gets `ended` without the last screen.
    public static let endingWait = Duration.seconds(2)

    struct Ending: Sendable {
        var status: Int
        var deadline: ContinuousClock.Instant
    }

    /// The program ended with `status`. A terminal with no update on its way is sent the screen
    /// as the program left it (when it has not seen it), and `ended` once that is shown; one with
    /// an update on its way waits for its `shown` first, `endingWait` at most. Each is closed after
    /// its `ended`. Before, a terminal that had not yet shown the update before the last one (a
    /// `cat` of a big file, then `exit`) was told the program ended over a screen it never saw.
    public mutating func programEnded(status: Int, now: ContinuousClock.Instant) -> [Action] {
        endedStatus = status
        question = nil
        driver = nil
        followersDue = nil
        ending = Ending(status: status, deadline: now + Self.endingWait)
        return terminals.keys.sorted().flatMap { finish($0) }
    }

    /// A terminal with nothing on its way: the newest screen, or, when it has that, `ended`.
    private mutating func finish(_ id: TerminalID) -> [Action] {
        guard let ending, let terminal = terminals[id], terminal.inFlight == nil else { return [] }
        let update = sendScreen(to: id)
        guard update.isEmpty else { return update }
        terminals[id] = nil
        return [.send(id, .ended(status: ending.status)), .close(id)]
    }

    /// A message once the program ended: a `shown` lets its terminal be finished; what only the
    /// keeper sends closes it; keys, sizes and requests to drive have no program to reach.
    mutating func receiveWhileEnding(_ id: TerminalID, _ message: ShellMessage) -> [Action] {
        switch message {
        case .shown(let revision):
            guard terminals[id]?.inFlight == revision else { return [] }
            terminals[id]?.inFlight = nil
            return finish(id)
        case .hello, .role, .screen, .ask, .withdrawn, .refused, .ended:
            dropped += 1
            terminals[id] = nil
            return [.close(id)]
        case .input, .resize, .take, .answer:
            return []
        }
    }

    /// When the terminals still waiting to be told of the end are told regardless.
    var endingDeadline: ContinuousClock.Instant? {
        terminals.isEmpty ? nil : ending?.deadline
    }

    /// The ending's deadline passed: every terminal still waiting gets `ended` now.
    mutating func endWaiting(now: ContinuousClock.Instant) -> [Action] {
        guard let ending, now >= ending.deadline else { return [] }
        let ids = terminals.keys.sorted()
        terminals = [:]
        return ids.flatMap { [Action.send($0, .ended(status: ending.status)), .close($0)] }
    }
}
