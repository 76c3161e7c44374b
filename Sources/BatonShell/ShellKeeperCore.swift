/// The keeper's rules for the terminals joined to a shell session (docs/PROTOCOL.md section 20),
/// without I/O: who drives, who is asked before a machine takes the session, what each terminal
/// is sent and when. Its runner feeds it what happens and carries out the actions it returns.
///
/// One terminal drives at a time: its keys reach the program and its size is the program's.
/// The others follow: they get the screen and nothing they type reaches the program. Each
/// terminal has at most one screen update on its way; what changes meanwhile is gathered into
/// the next, so a slow terminal gets the newest screen, never a backlog.
public struct ShellKeeperCore: Sendable {
    public typealias TerminalID = Int

    /// What the runner does.
    public enum Action: Hashable, Sendable {
        case send(TerminalID, ShellMessage)
        /// Close this terminal's stream (after what was sent to it).
        case close(TerminalID)
        /// Type this into the program, encoded as the program asked (libvterm does).
        case type(ShellInput)
        /// Give the program this size; then tell the core its new screen (`screenChanged`).
        case resize(rows: Int, columns: Int)
    }

    /// Who a terminal is: this machine (the session's own user) or another listed device.
    public enum Origin: Hashable, Sendable {
        case thisDevice
        case listedDevice
    }

    struct Terminal: Sendable {
        var name: String
        var origin: Origin
        var rows: Int
        var columns: Int
        /// May drive without asking: this machine, a device allowed once in this session, or
        /// every listed device when the keeper allows them.
        var mayDrive: Bool
        /// Joined asking to drive, and not yet let: refused means closed.
        var waitingToDrive = false
        /// What it was last sent, its revision, and the update on its way.
        var sent: ShellScreen?
        var revision = 0
        var inFlight: Int?
    }

    /// A question put to the driving terminal's user.
    struct Question: Sendable {
        var asker: TerminalID
        var asked: TerminalID
        var deadline: ContinuousClock.Instant
    }

    public private(set) var screen: ShellScreen
    public internal(set) var driver: TerminalID?
    var terminals: [TerminalID: Terminal] = [:]
    var question: Question?
    /// While the followers' updates wait for the driving terminal to say it showed the screen it
    /// was just sent (see `screenChanged`): the time they stop waiting.
    var followersDue: ContinuousClock.Instant?
    /// Listed devices drive without the driving terminal's user being asked.
    public var allowsListedDevices: Bool
    public internal(set) var endedStatus: Int?
    /// Once the program ended: its status, and the time by which every terminal is told of it
    /// (`ShellKeeperCore+Ending`).
    var ending: Ending?
    /// Messages from terminals that may not send them (a follower's keys): dropped and counted.
    public internal(set) var dropped = 0

    /// How long the driving terminal's user has to answer.
    public static let answerTime = Duration.seconds(30)
    /// How long the followers wait for the driving terminal's `shown` (a driver stopped with
    /// Ctrl-Z says nothing): then they get the screen anyway.
    public static let followerWait = Duration.milliseconds(50)

    public init(screen: ShellScreen, allowsListedDevices: Bool = false) {
        self.screen = screen
        self.allowsListedDevices = allowsListedDevices
    }

    public var terminalCount: Int { terminals.count }

    /// The name of the terminal that drives, or nil.
    public var driverName: String? { driver.flatMap { terminals[$0]?.name } }

    /// When `tick` has something to do.
    public var nextDeadline: ContinuousClock.Instant? {
        // Asked after every message a terminal sends: the earliest of three without an array
        // made and dropped each time (6,000 instructions a key in a callgrind profile).
        func earlier(_ one: ContinuousClock.Instant?, _ other: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
            guard let one else { return other }
            guard let other else { return one }
            return min(one, other)
        }
        return earlier(earlier(followersDue, question?.deadline), endingDeadline)
    }

    // MARK: - Terminals

    /// A terminal opened a stream and said `hello`.
    public mutating func join(_ id: TerminalID, origin: Origin, hello: ShellMessage, now: ContinuousClock.Instant) -> [Action] {
        guard endedStatus == nil else { return [.send(id, .ended(status: endedStatus!)), .close(id)] }
        guard case .hello(let role, let name, let rows, let columns) = hello else {
            return [.send(id, .refused(reason: "the first message was not hello")), .close(id)]
        }
        terminals[id] = Terminal(
            name: name, origin: origin, rows: rows, columns: columns,
            mayDrive: origin == .thisDevice || allowsListedDevices)
        var actions: [Action] = []
        if role == .drive {
            terminals[id]?.waitingToDrive = true
            actions += askToDrive(id, now: now)
        }
        // Until it drives (or is refused), it follows: it sees the screen, and its keys go nowhere.
        if terminals[id] != nil, driver != id {
            actions.append(.send(id, .role(drives: false, driver: driverName ?? "")))
            actions += sendScreen(to: id)
        }
        return actions
    }

    /// A terminal's stream ended.
    public mutating func left(_ id: TerminalID) -> [Action] {
        guard terminals.removeValue(forKey: id) != nil else { return [] }
        var actions: [Action] = []
        if let question, question.asker == id {
            self.question = nil
            actions.append(.send(question.asked, .withdrawn))
        }
        if let question, question.asked == id {
            self.question = nil
            actions += refuse(question.asker, "\(terminalName(id)) left before answering")
        }
        if driver == id {
            driver = nil
            // Nobody drives now: the program keeps running, at its size, until someone does.
            for other in terminals.keys.sorted() { actions.append(.send(other, .role(drives: false, driver: ""))) }
        }
        // Followers that waited for this terminal's `shown` wait no more.
        return actions + (followersDue != nil ? sendFollowers() : [])
    }

    /// A message from a terminal.
    public mutating func receive(_ id: TerminalID, _ message: ShellMessage, now: ContinuousClock.Instant) -> [Action] {
        guard let terminal = terminals[id] else { return [] }
        if ending != nil { return receiveWhileEnding(id, message) }
        switch message {
        case .input(let input):
            guard driver == id else { dropped += 1; return [] }
            return [.type(input)]
        case .resize(let rows, let columns):
            terminals[id]?.rows = rows
            terminals[id]?.columns = columns
            guard driver == id else { return [] }
            return resizeProgram(rows: rows, columns: columns)
        case .take:
            guard driver != id, !terminal.waitingToDrive else { return [] }
            return askToDrive(id, now: now)
        case .answer(let allow):
            guard let question, question.asked == id else { dropped += 1; return [] }
            self.question = nil
            guard terminals[question.asker] != nil else { return [] }
            if allow {
                terminals[question.asker]?.mayDrive = true
                return grant(question.asker)
            }
            return refuse(question.asker, "\(terminal.name) said no")
        case .shown(let revision):
            guard terminal.inFlight == revision else { return [] }
            terminals[id]?.inFlight = nil
            if id == driver { return sendScreen(to: id) + sendFollowers() }
            return followersDue != nil ? [] : sendScreen(to: id)
        case .hello, .role, .screen, .ask, .withdrawn, .refused, .ended:
            // Another hello, or what only the keeper sends: broken, and the terminal is closed.
            dropped += 1
            return left(id) + [.close(id)]
        }
    }

    // MARK: - The program

    /// The program's screen changed: each terminal with no update on its way gets one. When the
    /// driving terminal is sent one, the followers get theirs once it says it showed it (one
    /// round trip later): on a small machine the terminals run one after another on a core,
    /// and a follower's whole draw came before the driver's echo otherwise. A driver still
    /// showing an earlier update is slow, and the followers do not wait for it.
    public mutating func screenChanged(_ new: ShellScreen, now: ContinuousClock.Instant) -> [Action] {
        screen = new
        // The program ended: each terminal still waiting gets this screen with its `shown`.
        guard ending == nil else { return [] }
        let toDriver = driver.map { sendScreen(to: $0) } ?? []
        guard toDriver.isEmpty else {
            if followersDue == nil { followersDue = now + Self.followerWait }
            return toDriver
        }
        return sendFollowers()
    }

    /// An update to each follower with none on its way.
    private mutating func sendFollowers() -> [Action] {
        followersDue = nil
        return terminals.keys.sorted().filter { $0 != driver }.flatMap { sendScreen(to: $0) }
    }

    /// A deadline passed: terminals still waiting to be told the program ended are told; the
    /// asker of a question is refused; followers that waited for the driving terminal get the screen.
    public mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        var actions = endWaiting(now: now)
        if let due = followersDue, now >= due { actions += sendFollowers() }
        guard let question, now >= question.deadline else { return actions }
        self.question = nil
        return actions + [.send(question.asked, .withdrawn)] + refuse(question.asker, "\(terminalName(question.asked)) did not answer")
    }

    // MARK: - Rules

    private mutating func askToDrive(_ id: TerminalID, now: ContinuousClock.Instant) -> [Action] {
        guard let terminal = terminals[id] else { return [] }
        if terminal.mayDrive { return grant(id) }
        if question != nil { return refuse(id, "another machine is asking for this session; try again in a moment") }
        guard let driver, terminals[driver] != nil else {
            return refuse(id, "nobody is at this session to answer; on its machine, `baton shell --allow-listed` lets listed devices take it without asking")
        }
        question = Question(asker: id, asked: driver, deadline: now + Self.answerTime)
        return [.send(driver, .ask(peerName: terminal.name))]
    }

    private mutating func grant(_ id: TerminalID) -> [Action] {
        guard let terminal = terminals[id] else { return [] }
        var actions: [Action] = []
        let previous = driver
        driver = id
        terminals[id]?.waitingToDrive = false
        if let question, question.asked == previous || question.asker == id {
            self.question = nil
            if question.asker != id { actions += refuse(question.asker, "the session moved to \(terminal.name)") }
        }
        for other in terminals.keys.sorted() where other != id {
            actions.append(.send(other, .role(drives: false, driver: terminal.name)))
        }
        actions.append(.send(id, .role(drives: true, driver: terminal.name)))
        // A program that takes a new size gets a new screen, which `screenChanged` sends.
        let resize = resizeProgram(rows: terminal.rows, columns: terminal.columns)
        actions += resize.isEmpty ? sendScreen(to: id) : resize
        // Followers that waited for the previous driver's `shown` wait no more.
        return actions + (followersDue != nil ? sendFollowers() : [])
    }

    private mutating func refuse(_ id: TerminalID, _ reason: String) -> [Action] {
        guard let terminal = terminals[id] else { return [] }
        // One that joined to drive and may not is closed; one that follows goes on following.
        if terminal.waitingToDrive {
            terminals[id] = nil
            return [.send(id, .refused(reason: reason)), .close(id)]
        }
        return [.send(id, .refused(reason: reason))]
    }

    private mutating func resizeProgram(rows: Int, columns: Int) -> [Action] {
        guard rows != screen.rowCount || columns != screen.columns else { return [] }
        return [.resize(rows: rows, columns: columns)]
    }

    mutating func sendScreen(to id: TerminalID) -> [Action] {
        guard let terminal = terminals[id], terminal.inFlight == nil else { return [] }
        if let sent = terminal.sent, sent == screen { return [] }
        let update = ShellScreenUpdate(from: terminal.sent, to: screen, revision: terminal.revision + 1)
        terminals[id]?.sent = screen
        terminals[id]?.revision += 1
        terminals[id]?.inFlight = update.revision
        return [.send(id, .screen(update))]
    }

    private func terminalName(_ id: TerminalID) -> String { terminals[id]?.name ?? "the terminal asked" }
}
